/**
 * TLS of the data connections: {@link io.sluice.netty.tls.TlsSettings} (the {@code shuffle.security.ssl.*} options,
 * checked when the environment is created), {@link io.sluice.netty.tls.TlsContexts} (the server and client contexts
 * built once from the stores, with mutual authentication, TLS 1.3/1.2 and the handshake timeout, and the per-connection
 * {@code SslHandler}s cut from them), {@link io.sluice.netty.tls.TlsProvider} and
 * {@link io.sluice.netty.tls.OpenSslSupport} (whether netty-tcnative can run). The transport puts the handlers first in
 * every TCP pipeline; see docs/security.md.
 *
 * <h2>Threads</h2>
 * Settings and contexts are immutable and built on the thread that creates the environment; each handler belongs to the
 * event loop of its connection.
 */
package io.sluice.netty.tls;
