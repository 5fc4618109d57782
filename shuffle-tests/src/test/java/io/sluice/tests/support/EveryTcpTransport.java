package io.sluice.tests.support;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a test method once per TCP {@link Transport} available here (nio, and epoll where its native library
 * loads): for tests that need a real port, e.g. to reach it with a plain socket or from another process.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@MethodSource("io.sluice.tests.support.Transport#availableTcp")
public @interface EveryTcpTransport {
}
