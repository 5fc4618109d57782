package io.sluice.api.loader;

/** A class that exists but is no ShuffleServiceFactory. */
public final class NotAFactory {
}
