package io.sluice.api;

/**
 * Levenshtein distance (insertions, deletions, substitutions, each costing 1), used to suggest
 * the known option closest to a mistyped key ({@link ShuffleConfigValidator}). An implementation helper, so not
 * exported: tools use {@link ShuffleConfigValidator#closestName}. Stateless; any thread.
 */
final class EditDistance {

    private EditDistance() {
    }

    /**
     * @param a the text to start from
     * @param b the text to reach
     * @return the fewest single-character edits (insert, delete, replace) that turn {@code a} into {@code b}
     */
    static int between(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
