/**
 * The options of one environment, read from its {@code ShuffleConfig} and checked once at creation
 * ({@link io.sluice.netty.config.EnvironmentConfig}). A leaf: every other package of the library may read it, it
 * reads none of them but the TLS settings. Immutable values; any thread.
 */
package io.sluice.netty.config;
