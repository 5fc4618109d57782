package io.sluice.flink.itcases;

import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The injection's choice of factory and its options, as the profile's runs set them. */
class InjectionTest {

    private static final String NETTY = ShuffleServiceOptions.NETTY_SHUFFLE_SERVICE_FACTORY_CLASS;

    @Test
    void aSluiceRunReplacesFlinksDefaultShuffleWithSluice() {
        Injection injection = Injection.parse("sluice", "");

        assertTrue(injection.sluice());
        assertEquals(InjectedShuffleServiceFactory.class.getName(), injection.factoryClass(NETTY));
    }

    @Test
    void aFlinkRunKeepsFlinksShuffle() {
        Injection injection = Injection.parse("flink", "sluice.shuffle.netty.server-threads=1");

        assertFalse(injection.sluice());
        assertEquals(NETTY, injection.factoryClass(NETTY));
    }

    @Test
    void aSluiceRunAlsoReplacesTheSharedPoolNettyShuffleOfFlinksUnalignedCheckpointTests() {
        assertEquals(InjectedShuffleServiceFactory.class.getName(),
                Injection.parse("sluice", "").factoryClass(Injection.SHARED_POOL_NETTY_SHUFFLE));
        assertEquals(Injection.SHARED_POOL_NETTY_SHUFFLE,
                Injection.parse("flink", "").factoryClass(Injection.SHARED_POOL_NETTY_SHUFFLE));
    }

    @Test
    void aTestThatChoseAnotherShuffleKeepsIt() {
        assertEquals("com.example.OtherShuffleFactory",
                Injection.parse("sluice", "").factoryClass("com.example.OtherShuffleFactory"));
    }

    @Test
    void optionsAreKeyValuePairsSeparatedByCommas() {
        Injection injection = Injection.parse("sluice",
                " sluice.shuffle.input.local-channels=false, sluice.shuffle.netty.server-threads = 2 ,");

        assertEquals(Map.of("sluice.shuffle.input.local-channels", "false",
                "sluice.shuffle.netty.server-threads", "2"), injection.options());
    }

    @Test
    void aWrongShuffleNameOrPairIsRefused() {
        IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
                () -> Injection.parse("celeborn", ""));
        assertEquals("sluice.itcases.shuffle must be flink or sluice, not 'celeborn'", name.getMessage());
        IllegalArgumentException pair = assertThrows(IllegalArgumentException.class,
                () -> Injection.parse("sluice", "sluice.shuffle.netty.transport"));
        assertTrue(pair.getMessage().contains("'sluice.shuffle.netty.transport' has no key=value"),
                pair.getMessage());
    }
}
