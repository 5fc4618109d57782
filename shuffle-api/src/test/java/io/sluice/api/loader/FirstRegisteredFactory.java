package io.sluice.api.loader;

/** Listed first in META-INF/services. */
public final class FirstRegisteredFactory extends RecordingShuffleServiceFactory {
}
