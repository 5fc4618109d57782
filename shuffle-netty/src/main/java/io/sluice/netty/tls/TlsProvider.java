package io.sluice.netty.tls;

import io.netty.handler.ssl.SslProvider;
import io.sluice.api.ShuffleOptions;

/** The TLS engine of {@code shuffle.security.ssl.provider}. Immutable; any thread. */
public enum TlsProvider {

    /** The JDK's SSLEngine. */
    JDK(SslProvider.JDK),
    /** BoringSSL through netty-tcnative ({@value OpenSslSupport#ARTIFACT}). */
    OPENSSL(SslProvider.OPENSSL);

    private final SslProvider netty;

    TlsProvider(SslProvider netty) {
        this.netty = netty;
    }

    SslProvider netty() {
        return netty;
    }

    /**
     * @param option the option's value: {@code jdk} or {@code openssl}
     * @throws IllegalArgumentException for any other value
     */
    public static TlsProvider fromOption(String option) {
        return switch (option) {
            case "jdk" -> JDK;
            case "openssl" -> OPENSSL;
            default -> throw new IllegalArgumentException(ShuffleOptions.SSL_PROVIDER.key() + ": unknown provider '"
                    + option + "'; use jdk or openssl");
        };
    }
}
