package io.vesta.autoconfigure.server;

import io.vesta.autoconfigure.publicid.VestaPublicIdAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentServerAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class runs against one server with every optional endpoint on, shared by the classes that use it: db leases
 * in H2 with lease admin, make-id, segments, public IDs, a client and an admin token.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(classes = EveryEndpointServer.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "vesta.server.enabled=true", "vesta.machine-id.strategy=db",
                "vesta.machine-id.db.owner=" + EveryEndpointServer.OWNER, "vesta.machine-id.db.table=every_endpoint_lease",
                "vesta.server.lease-admin-enabled=true", "vesta.server.make-id-enabled=true",
                "vesta.server.tokens=" + EveryEndpointServer.CLIENT, "vesta.server.admin-tokens=" + EveryEndpointServer.ADMIN,
                "vesta.segment.enabled=true", "vesta.segment.admin-enabled=true", "vesta.segment.table=every_endpoint_segment",
                "vesta.segment.initialize-schema=always", "spring.datasource.url=jdbc:h2:mem:every-endpoint;DB_CLOSE_DELAY=-1",
                "server.address=127.0.0.1", "spring.main.banner-mode=off", "vesta.time-store.enabled=false",
                "vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + EveryEndpointServer.PUBLIC_ID_KEY })
@interface EveryEndpointServer {

    String CLIENT = "every-endpoint-client-token-0123456789";
    String ADMIN = "every-endpoint-admin-token-9876543210";
    String OWNER = "every-endpoint-server";
    /** A segment tag the table has. */
    String TAG = "paths";
    /** The AES key of the server's public IDs, 16 bytes in base 64. */
    String PUBLIC_ID_KEY = "AAECAwQFBgcICQoLDA0ODw==";

    /** Another node's live lease on 925 and an ended one on 926, both as new; the segment tag. */
    final class Rows {

        private Rows() {
        }

        static JdbcTemplate reset(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            long now = System.currentTimeMillis();
            jdbc.update("DELETE FROM every_endpoint_lease WHERE owner <> '" + OWNER + "'");
            jdbc.update("INSERT INTO every_endpoint_lease VALUES (925, 'live-node', ?, ?, 3)", now + 600_000, now + 600_000);
            jdbc.update("INSERT INTO every_endpoint_lease VALUES (926, 'stopped-node', ?, ?, 5)", now - 1000, now - 1000);
            jdbc.update("MERGE INTO every_endpoint_segment (biz_tag, max_id, step, description) KEY (biz_tag)"
                    + " VALUES (?, 1, 100, 'test')", TAG);
            return jdbc;
        }

        static long generationOf925(JdbcTemplate jdbc) {
            return jdbc.queryForObject("SELECT generation FROM every_endpoint_lease WHERE machine_id = 925", Long.class);
        }
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    @ImportAutoConfiguration({ DataSourceAutoConfiguration.class, VestaSegmentAutoConfiguration.class,
            VestaSegmentServerAutoConfiguration.class, VestaPublicIdAutoConfiguration.class })
    class App {
    }
}
