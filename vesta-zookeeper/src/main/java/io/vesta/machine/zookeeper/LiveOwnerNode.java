package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdUnavailableException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * This owner's live node, {@code /vesta/{namespace}/live/{owner}}: an ephemeral node that exists while a process
 * holding the owner has a session. Another process's node there means a second live process under one owner (a copied
 * configuration, two containers with one address): refused, after waiting up to a lease for the node to go, as a
 * crashed process's does when its session expires. Safety does not rest on it (the versioned writes and lease ends
 * do); it turns the misconfiguration into a clear refusal instead of two processes taking the ID from each other.
 */
final class LiveOwnerNode {

    private final CuratorFramework client;
    private final String path;
    private final String owner;
    private final String namespace;
    /** This process's mark, to tell a create of ours whose answer was lost from another process's. */
    private final byte[] token;

    LiveOwnerNode(CuratorFramework client, String namespace, String owner, String process) {
        this.client = client;
        this.path = "/vesta/" + namespace + "/live/" + owner;
        this.owner = owner;
        this.namespace = namespace;
        this.token = process.getBytes(StandardCharsets.UTF_8);
    }

    /** Takes the live node, waiting up to {@code leaseMillis} for another process's to go. */
    void claim(long leaseMillis, long reportIntervalMillis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        for (;;) {
            try {
                client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, token);
                return;
            } catch (KeeperException.NodeExistsException e) {
                Stat stat = new Stat();
                byte[] holder;
                try {
                    holder = client.getData().storingStatIn(stat).forPath(path);
                } catch (KeeperException.NoNodeException gone) {
                    continue;
                }
                if (Arrays.equals(holder, token)) {
                    return; // our own create, retried by Curator after its answer was lost
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new MachineIdUnavailableException("Another live process holds owner '" + owner
                            + "' in namespace '" + namespace + "' (its live node " + path + " belongs to ZooKeeper"
                            + " session 0x" + Long.toHexString(stat.getEphemeralOwner()) + "), and it did not go"
                            + " within " + leaseMillis + "ms (lease). Two processes under one owner would share a machine ID: give"
                            + " each process an owner of its own (vesta.machine-id.zookeeper.owner, by default host"
                            + " name, address and port).");
                }
                Thread.sleep(Math.min(200, Math.max(10, reportIntervalMillis)));
            }
        }
    }

    /** After a session expired and Curator reconnected, the ephemeral node is gone: take it again. */
    void ensure(System.Logger log) {
        try {
            if (client.checkExists().forPath(path) == null) {
                client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, token);
            }
        } catch (KeeperException.NodeExistsException e) {
            // Another process under our owner: the versioned writes decide who holds the ID.
        } catch (Exception e) {
            log.log(Level.DEBUG, () -> "Cannot check the live node " + path + ": " + e);
        }
    }

    /** Deletes the live node if it is this process's, so that the owner is free for the next attempt at once. */
    void release() {
        try {
            if (Arrays.equals(client.getData().forPath(path), token)) {
                client.delete().forPath(path);
            }
        } catch (Exception e) {
            // gone already, or unreachable: it goes with the session
        }
    }

    /** Whether {@code owner}'s live node exists in {@code namespace}. */
    static boolean exists(CuratorFramework client, String namespace, String owner) throws Exception {
        return client.checkExists().forPath("/vesta/" + namespace + "/live/" + owner) != null;
    }
}
