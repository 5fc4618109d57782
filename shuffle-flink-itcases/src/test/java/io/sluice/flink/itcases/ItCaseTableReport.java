package io.sluice.flink.itcases;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * Not a test: the profile's last step, run by its own surefire execution after the runs so that the table needs no
 * further build plugin. Prints {@link ItCaseTable} for the list and reports the execution passes in as system
 * properties, and writes it to {@code <reports>/table.md}.
 */
class ItCaseTableReport {

    @Test
    void printsTheTableOfTheRuns() throws Exception {
        ItCaseTable.main(new String[] {System.getProperty("itcases.list"), System.getProperty("itcases.reports")});
    }
}
