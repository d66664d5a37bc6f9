package io.vesta.sample.embedded;

import io.vesta.Id;
import io.vesta.IdService;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Issues a few IDs with the {@link IdService} the starter configures from {@code application.properties},
 * and decodes each. {@code --count=N} issues N.
 */
@SpringBootApplication
public class EmbeddedSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(EmbeddedSampleApplication.class, args);
    }

    @Bean
    ApplicationRunner printIds(IdService idService) {
        return args -> {
            int count = count(args);
            for (long id : idService.genIds(count)) {
                Id fields = idService.expId(id);
                System.out.println(id + " -> " + fields + " at " + idService.transTime(fields.time()));
            }
        };
    }

    private static int count(ApplicationArguments args) {
        return args.containsOption("count") ? Integer.parseInt(args.getOptionValues("count").get(0)) : 5;
    }
}
