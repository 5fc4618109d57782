package io.sluice.tests.support;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a test method once per {@link Layout}; the method takes the layout as its only parameter and hands it to
 * {@link ShuffleFixture#start}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@EnumSource(Layout.class)
public @interface EveryLayout {
}
