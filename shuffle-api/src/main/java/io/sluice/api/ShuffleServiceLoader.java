package io.sluice.api;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the {@link ShuffleServiceFactory} named by {@link ShuffleOptions#SHUFFLE_SERVICE_FACTORY_CLASS}:
 * first among the providers {@link ServiceLoader} sees
 * ({@code META-INF/services/io.sluice.api.ShuffleServiceFactory}), else by loading that class by
 * name and calling its public no-argument constructor. Uses the thread's context class loader
 * (falling back to this class's loader). Stateless; any thread.
 */
public final class ShuffleServiceLoader {

    private static final Logger LOG = LoggerFactory.getLogger(ShuffleServiceLoader.class);

    private ShuffleServiceLoader() {
    }

    /**
     * @param config names the factory class under {@code shuffle-service-factory.class}
     * @return a new instance of the named factory
     * @throws ShuffleException when the class is unknown, cannot be loaded or instantiated, or is
     *     not a {@link ShuffleServiceFactory}; the message names the key, the class, and the
     *     factories that were found
     */
    public static ShuffleServiceFactory load(ShuffleConfig config) throws ShuffleException {
        String className = config.get(ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS).trim();
        ClassLoader classLoader = classLoader();
        List<String> found = new ArrayList<>();
        Iterator<ServiceLoader.Provider<ShuffleServiceFactory>> providers =
                ServiceLoader.load(ShuffleServiceFactory.class, classLoader).stream().iterator();
        try {
            while (providers.hasNext()) {
                ServiceLoader.Provider<ShuffleServiceFactory> provider = providers.next();
                found.add(provider.type().getName());
                if (provider.type().getName().equals(className)) {
                    LOG.debug("Using shuffle service factory {} registered in META-INF/services", className);
                    return provider.get();
                }
            }
        } catch (ServiceConfigurationError e) {
            throw failure(className, found, "a registered provider cannot be loaded: " + e.getMessage(), e);
        }
        return loadByName(className, classLoader, found);
    }

    private static ShuffleServiceFactory loadByName(String className, ClassLoader classLoader, List<String> found)
            throws ShuffleException {
        Class<?> type;
        try {
            type = Class.forName(className, true, classLoader);
        } catch (ClassNotFoundException e) {
            throw failure(className, found, "class not found", e);
        } catch (LinkageError e) {
            throw failure(className, found, "class cannot be loaded: " + e, e);
        }
        if (!ShuffleServiceFactory.class.isAssignableFrom(type)) {
            throw failure(className, found, "class does not implement " + ShuffleServiceFactory.class.getName(), null);
        }
        try {
            ShuffleServiceFactory factory =
                    type.asSubclass(ShuffleServiceFactory.class).getConstructor().newInstance();
            LOG.debug("Using shuffle service factory {} loaded by name", className);
            return factory;
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw failure(className, found, "class has no public no-argument constructor", e);
        } catch (InstantiationException e) {
            throw failure(className, found, "class is abstract", e);
        } catch (InvocationTargetException e) {
            throw failure(className, found, "constructor failed: " + e.getCause(), e.getCause());
        } catch (LinkageError e) {
            throw failure(className, found, "class cannot be initialized: " + e, e);
        }
    }

    private static ShuffleException failure(String className, List<String> found, String reason, Throwable cause) {
        String message = ShuffleOptions.SHUFFLE_SERVICE_FACTORY_CLASS.key() + " = " + className + ": " + reason
                + "; factories found in META-INF/services/" + ShuffleServiceFactory.class.getName() + ": "
                + (found.isEmpty() ? "none" : String.join(", ", found));
        return cause == null ? new ShuffleException(message) : new ShuffleException(message, cause);
    }

    private static ClassLoader classLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : ShuffleServiceLoader.class.getClassLoader();
    }
}
