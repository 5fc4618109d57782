package io.sluice.netty.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.sluice.api.ConfigOption;
import io.sluice.api.ShuffleOptions;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.util.Collections;

/**
 * The TLS of one environment's data connections: a server and a client context built once from
 * {@link TlsSettings}, and the {@link SslHandler}s cut from them per connection. Both sides present this
 * environment's certificate and require the peer's to chain to the truststore (mutual authentication), speak
 * TLS 1.3 or 1.2 only, and give up on a handshake after the configured timeout. Peers are identified by their CA, not
 * by host name: data addresses are whatever the engine hands around, so the client does not match the server's name
 * against its certificate.
 *
 * <p>Immutable after {@link #create}; any thread ({@link SslContext} is thread-safe). Each handler is owned by the
 * pipeline it is added to.
 */
public final class TlsContexts {

    /** TLS 1.3 first; 1.2 for peers without it. Nothing older. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final SslContext server;
    private final SslContext client;
    private final long handshakeTimeoutMillis;
    private final TlsProvider provider;

    private TlsContexts(SslContext server, SslContext client, long handshakeTimeoutMillis, TlsProvider provider) {
        this.server = server;
        this.client = client;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.provider = provider;
    }

    /**
     * Opens both stores and builds the contexts.
     *
     * @param openSsl whether the openssl provider can run (checked only when it is chosen)
     * @throws IllegalArgumentException naming the option to fix: a store that is not PKCS12 or JKS or has no key, a
     *                                  wrong password, or openssl without netty-tcnative on the class path
     */
    public static TlsContexts create(TlsSettings settings, OpenSslSupport openSsl) {
        if (settings.provider() == TlsProvider.OPENSSL && !openSsl.isAvailable()) {
            Throwable cause = openSsl.unavailabilityCause();
            throw new IllegalArgumentException(ShuffleOptions.SSL_PROVIDER.key() + ": openssl needs "
                    + OpenSslSupport.ARTIFACT + " on the class path (the version matching Netty, "
                    + OpenSslSupport.TCNATIVE_VERSION + " for Netty 4.2.18.Final); add it, or use jdk"
                    + (cause == null ? "" : " (" + cause + ")"), cause);
        }
        KeyStore keys = load(settings.keystore(), settings.keystorePassword(), ShuffleOptions.SSL_KEYSTORE,
                ShuffleOptions.SSL_KEYSTORE_PASSWORD);
        KeyStore trusted = load(settings.truststore(), settings.truststorePassword(), ShuffleOptions.SSL_TRUSTSTORE,
                ShuffleOptions.SSL_TRUSTSTORE_PASSWORD);
        KeyManagerFactory keyManagers = keyManagers(keys, settings);
        TrustManagerFactory trustManagers = trustManagers(trusted, settings.truststore());
        try {
            SslContext server = SslContextBuilder.forServer(keyManagers)
                    .trustManager(trustManagers)
                    .clientAuth(ClientAuth.REQUIRE)
                    .protocols(PROTOCOLS)
                    .sslProvider(settings.provider().netty())
                    .build();
            SslContext client = SslContextBuilder.forClient()
                    .keyManager(keyManagers)
                    .trustManager(trustManagers)
                    .protocols(PROTOCOLS)
                    .endpointIdentificationAlgorithm(null)
                    .sslProvider(settings.provider().netty())
                    .build();
            return new TlsContexts(server, client, settings.handshakeTimeout().toMillis(), settings.provider());
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(ShuffleOptions.SSL_PROVIDER.key() + ": cannot set up TLS with the "
                    + settings.provider().name().toLowerCase() + " provider and keystore '" + settings.keystore()
                    + "': " + e.getMessage(), e);
        }
    }

    /** A handler for an accepted connection; the peer must present a trusted certificate. */
    public SslHandler newServerHandler(ByteBufAllocator alloc) {
        return withTimeout(server.newHandler(alloc));
    }

    /** A handler for a connection this environment opens. */
    public SslHandler newClientHandler(ByteBufAllocator alloc) {
        return withTimeout(client.newHandler(alloc));
    }

    /** @return the engine in use */
    public TlsProvider provider() {
        return provider;
    }

    private SslHandler withTimeout(SslHandler handler) {
        handler.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
        return handler;
    }

    private static KeyStore load(Path file, String password, ConfigOption<String> fileOption,
                                 ConfigOption<String> passwordOption) {
        try {
            // Java 9+: the type (PKCS12 or JKS) is detected from the file's content.
            return KeyStore.getInstance(file.toFile(), password.toCharArray());
        } catch (IOException e) {
            if (isWrongPassword(e)) {
                throw new IllegalArgumentException(passwordOption.key() + ": wrong password for '"
                        + file.toAbsolutePath() + "' (" + fileOption.key() + ")", e);
            }
            throw new IllegalArgumentException(fileOption.key() + ": cannot read '" + file.toAbsolutePath()
                    + "': " + e.getMessage(), e);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException(fileOption.key() + ": '" + file.toAbsolutePath()
                    + "' is not a PKCS12 or JKS keystore: " + e.getMessage(), e);
        }
    }

    private static boolean isWrongPassword(IOException e) {
        return e.getCause() instanceof UnrecoverableKeyException
                || (e.getMessage() != null && e.getMessage().toLowerCase().contains("password"));
    }

    private static KeyManagerFactory keyManagers(KeyStore keys, TlsSettings settings) {
        String keystoreKey = ShuffleOptions.SSL_KEYSTORE.key();
        try {
            boolean hasKey = false;
            for (String alias : Collections.list(keys.aliases())) {
                hasKey |= keys.isKeyEntry(alias);
            }
            if (!hasKey) {
                throw new IllegalArgumentException(keystoreKey + ": '" + settings.keystore().toAbsolutePath()
                        + "' holds no private key; it must hold this environment's key and certificate chain");
            }
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keys, settings.keyPassword().toCharArray());
            return factory;
        } catch (UnrecoverableKeyException e) {
            throw new IllegalArgumentException(ShuffleOptions.SSL_KEY_PASSWORD.key() + ": wrong password for the "
                    + "private key in '" + settings.keystore().toAbsolutePath() + "' (empty = "
                    + ShuffleOptions.SSL_KEYSTORE_PASSWORD.key() + ")", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(keystoreKey + ": cannot use '" + settings.keystore().toAbsolutePath()
                    + "': " + e.getMessage(), e);
        }
    }

    private static TrustManagerFactory trustManagers(KeyStore trusted, Path file) {
        try {
            if (trusted.size() == 0) {
                throw new IllegalArgumentException(ShuffleOptions.SSL_TRUSTSTORE.key() + ": '" + file.toAbsolutePath()
                        + "' holds no certificate: no peer could be trusted");
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            return factory;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(ShuffleOptions.SSL_TRUSTSTORE.key() + ": cannot use '"
                    + file.toAbsolutePath() + "': " + e.getMessage(), e);
        }
    }
}
