package io.sluice.tests.support;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a test method once per {@link Transport} available here (nio, epoll where its native library loads, local);
 * the method takes the transport as its only parameter and hands it to {@link ShuffleFixture#start(Transport,
 * io.sluice.api.ShuffleConfig)}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@MethodSource("io.sluice.tests.support.Transport#available")
public @interface EveryTransport {
}
