package io.vesta.machine.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.vesta.test.TestVariables;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** Where the tests find etcd (the suite's member, the binary for clusters of their own) and what they do on it. */
final class EtcdTestSupport {

    private EtcdTestSupport() {
    }

    /** The suite's member, {@code VESTA_TEST_ETCD_ENDPOINTS}. */
    static List<URI> endpoints() {
        return TestVariables.etcdEndpoints();
    }

    /** A prefix no other test uses. */
    static String prefix(String test) {
        return "/vesta-test/" + test + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE)
                + "/";
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** The cluster ID {@code client} is talking to, as the store mark names it. */
    static String clusterId(Client client) throws Exception {
        return Long.toHexString(client.getKVClient().get(bytes("/"), GetOption.builder().withCountOnly(true).build())
                .get(2, TimeUnit.SECONDS).getHeader().getClusterId());
    }

    /**
     * Names the cluster behind {@code client} as the one the last claim on {@code prefix} ran on, settled long ago, as
     * on a prefix in use for longer than a lease: a first claim then waits out nothing. A restore loses this mark's
     * cluster, and a snapshot taken after it keeps the mark.
     */
    static void markStore(Client client, String prefix) throws Exception {
        client.getKVClient().put(bytes(prefix + EtcdLeaseStore.STORE_KEY), bytes(clusterId(client) + "|0"))
                .get(10, TimeUnit.SECONDS);
    }

    /** The value of {@code key}, or null. */
    static String get(Client client, String key) throws Exception {
        var kvs = client.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
    }
}
