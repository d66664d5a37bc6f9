package io.vesta.sample.client;

import io.vesta.Id;
import io.vesta.IdService;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Takes a few IDs from the central server of {@code vesta.client.servers} through the injected {@link IdService}
 * and decodes each: the machine ID is the server's, genMethod 1. {@code --count=N} takes N. Start
 * vesta-server first.
 */
@SpringBootApplication
public class ClientSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(ClientSampleApplication.class, args);
    }

    @Bean
    ApplicationRunner printIds(IdService idService) {
        return args -> {
            int count = count(args);
            for (int i = 0; i < count; i++) {
                long id = idService.genId();
                Id fields = idService.expId(id);
                System.out.println(id + " -> " + fields + " at " + idService.transTime(fields.time()));
            }
        };
    }

    private static int count(ApplicationArguments args) {
        return args.containsOption("count") ? Integer.parseInt(args.getOptionValues("count").get(0)) : 5;
    }
}
