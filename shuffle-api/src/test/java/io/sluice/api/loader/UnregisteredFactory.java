package io.sluice.api.loader;

/** Not listed in META-INF/services: found only by class name. */
public final class UnregisteredFactory extends RecordingShuffleServiceFactory {
}
