package io.sluice.api.loader;

/** A factory the loader cannot instantiate: it has no no-argument constructor. */
public final class FactoryWithoutDefaultConstructor extends RecordingShuffleServiceFactory {

    /** @param name unused */
    public FactoryWithoutDefaultConstructor(String name) {
    }
}
