package io.vesta.sample.core;

import io.vesta.EmbeddedIdService;
import io.vesta.Id;
import io.vesta.IdType;

import java.util.Locale;

/**
 * Issues a few IDs of each type in this process and decodes them.
 *
 * <pre>java -jar vesta-sample-core.jar [machineId] [count]</pre>
 */
public final class PrintIds {

    private PrintIds() {
    }

    public static void main(String[] args) {
        long machineId = args.length > 0 ? Long.parseLong(args[0]) : 1;
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        for (IdType type : IdType.values()) {
            try (EmbeddedIdService ids = EmbeddedIdService.builder().type(type).machineId(machineId).build()) {
                System.out.println(ids);
                System.out.printf(Locale.ROOT, "%-20s %-7s %-8s %-14s %-9s %-4s %-7s %s%n",
                        "id", "machine", "seq", "time", "genMethod", "type", "version", "instant");
                for (long id : ids.genIds(count)) {
                    Id f = ids.expId(id);
                    System.out.printf(Locale.ROOT, "%-20d %-7d %-8d %-14d %-9d %-4d %-7d %s%n",
                            id, f.machine(), f.seq(), f.time(), f.genMethod(), f.type(), f.version(), ids.transTime(f.time()));
                }
                System.out.println();
            }
        }
    }
}
