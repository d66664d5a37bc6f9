package io.vesta.sample.embedded;

import io.vesta.EmbeddedIdService;
import io.vesta.Id;
import io.vesta.IdService;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Issues a few IDs with the {@link IdService} the starter configures from {@code application.properties},
 * and decodes each. {@code --count=N} issues N.
 *
 * <p>{@code --issue-for=10s --out=ids.txt} instead issues IDs steadily for that long (or until the process
 * is killed) and appends them to the file, one per line after a first line naming the machine ID: the mode
 * the multi-process test runs several copies of against one lease table.
 */
@SpringBootApplication
public class EmbeddedSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(EmbeddedSampleApplication.class, args);
    }

    @Bean
    ApplicationRunner printIds(IdService idService) {
        return args -> {
            if (args.containsOption("issue-for")) {
                issueSteadily(idService, Duration.parse("PT" + option(args, "issue-for", "10s").toUpperCase()),
                        Path.of(option(args, "out", "ids.txt")));
                return;
            }
            int count = Integer.parseInt(option(args, "count", "5"));
            for (long id : idService.genIds(count)) {
                Id fields = idService.expId(id);
                System.out.println(id + " -> " + fields + " at " + idService.transTime(fields.time()));
            }
        };
    }

    private static void issueSteadily(IdService idService, Duration duration, Path out) throws IOException {
        long deadline = System.nanoTime() + duration.toNanos();
        try (BufferedWriter writer = Files.newBufferedWriter(out)) {
            writer.write("machine=" + ((EmbeddedIdService) idService).machineId());
            writer.newLine();
            while (System.nanoTime() < deadline) {
                for (long id : idService.genIds(50)) {
                    writer.write(Long.toString(id));
                    writer.newLine();
                }
                // Flushed every batch so a killed process leaves every ID it handed out on disk.
                writer.flush();
                LockSupport.parkNanos(200_000);
            }
        }
    }

    private static String option(ApplicationArguments args, String name, String fallback) {
        return args.containsOption(name) ? args.getOptionValues(name).get(0) : fallback;
    }
}
