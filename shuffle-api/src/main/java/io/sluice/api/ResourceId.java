package io.sluice.api;

import java.io.Serializable;
import java.util.Objects;

/**
 * Identifies one shuffle environment (in Flink terms, one TaskManager). A consumer whose
 * environment has the same id as a partition's producer reads that partition in-process.
 * Immutable value; any thread.
 *
 * @param value the id, unique among the environments of one job; not null
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record ResourceId(String value) implements Serializable {

    /**
     * @param value the id
     * @throws NullPointerException when {@code value} is null
     */
    public ResourceId {
        Objects.requireNonNull(value, "value");
    }

    /** The id itself, so that messages read "environment worker-1", not the record's field listing. */
    @Override
    public String toString() {
        return value;
    }
}
