package io.sluice.bench.command;

import io.sluice.bench.options.LibraryFlags;
import java.util.Map;

/**
 * The library's defaults, for the help of the options that set a library option: their
 * descriptions say {@code ${bundle:library-default.memory}}, and picocli fills in the value the
 * library would use, so the help cannot drift from the library. Immutable; any thread.
 */
final class LibraryDefaults extends java.util.ListResourceBundle {

    /** The key of a flag's default, e.g. {@code library-default.memory} for {@code --memory}. */
    static String key(String flag) {
        return "library-default." + flag.substring(2);
    }

    @Override
    protected Object[][] getContents() {
        Object[][] contents = new Object[LibraryFlags.OPTIONS.size()][];
        int i = 0;
        for (Map.Entry<String, io.sluice.api.ConfigOption<?>> entry : LibraryFlags.OPTIONS.entrySet()) {
            contents[i++] = new Object[] {key(entry.getKey()), LibraryFlags.defaultText(entry.getValue()) + " (library default)"};
        }
        return contents;
    }
}
