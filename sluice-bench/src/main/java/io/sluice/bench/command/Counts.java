package io.sluice.bench.command;

/** Range checks of the whole-number options, with the message that gives the range. Stateless; any thread. */
final class Counts {

    private Counts() {
    }

    /**
     * @param flag the option
     * @param value its value
     * @param min the least allowed
     * @param max the most allowed
     * @return the value
     * @throws UsageException naming the option, the value and the range
     */
    static int check(String flag, int value, int min, int max) throws UsageException {
        if (value < min || value > max) {
            throw new UsageException(flag + " " + value + " is out of range; use " + min + " to " + max);
        }
        return value;
    }
}
