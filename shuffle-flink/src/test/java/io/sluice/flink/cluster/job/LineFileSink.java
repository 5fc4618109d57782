package io.sluice.flink.cluster.job;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple3;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * A sink for jobs on a cluster of separate processes: each subtask attempt writes its elements, one line each,
 * {@code "<f0> <f1> <f2> end"}, to a file of its own in a directory the test reads afterwards. At-least-once (a
 * restarted attempt writes replayed elements again); a line cut short by a killed process lacks its {@code end} and
 * is not read. Task thread.
 */
public final class LineFileSink implements Sink<Tuple3<Long, Long, Long>> {

    private static final long serialVersionUID = 1L;
    private static final String END = "end";

    private final String directory;

    /** @param directory where the files go (created by the test, shared by every process) */
    public LineFileSink(Path directory) {
        this.directory = directory.toString();
    }

    @Override
    public SinkWriter<Tuple3<Long, Long, Long>> createWriter(WriterInitContext context) throws IOException {
        Path file = Paths.get(directory, "part-" + context.getTaskInfo().getIndexOfThisSubtask() + "-attempt-"
                + context.getTaskInfo().getAttemptNumber() + ".txt");
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        return new SinkWriter<>() {
            @Override
            public void write(Tuple3<Long, Long, Long> element, Context context) throws IOException {
                out.write(element.f0 + " " + element.f1 + " " + element.f2 + " " + END + "\n");
            }

            @Override
            public void flush(boolean endOfInput) throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    /** @return every complete element written to {@code directory}, file by file */
    public static List<Tuple3<Long, Long, Long>> read(Path directory) throws IOException {
        List<Tuple3<Long, Long, Long>> elements = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    String[] fields = line.split(" ");
                    if (fields.length == 4 && fields[3].equals(END)) {
                        elements.add(Tuple3.of(Long.parseLong(fields[0]), Long.parseLong(fields[1]),
                                Long.parseLong(fields[2])));
                    }
                }
            }
        }
        return elements;
    }
}
