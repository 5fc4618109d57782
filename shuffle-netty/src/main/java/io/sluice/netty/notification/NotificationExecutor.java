package io.sluice.netty.notification;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread of an environment that completes the availability futures engines see (see
 * {@link AvailabilityHandOff}): a daemon named {@code sluice-notify-<environment>}, so that engine continuations run
 * neither on Netty event loops nor on the threads that recycle buffers. Continuations that block hold up the other
 * notifications of the same environment: an engine should hand long work to its own threads.
 */
public final class NotificationExecutor {

    private NotificationExecutor() {
    }

    /** A single daemon thread for the environment {@code environmentName}; shut it down with the environment. */
    public static ExecutorService create(String environmentName) {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "sluice-notify-" + environmentName);
            thread.setDaemon(true);
            return thread;
        });
    }
}
