package io.sluice.api.loader;

/** Listed second in META-INF/services. */
public final class SecondRegisteredFactory extends RecordingShuffleServiceFactory {
}
