package io.vesta.autoconfigure.server;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.util.ArrayList;
import java.util.List;

/** Configuration of a central Vesta server: {@code vesta.server.*}. */
@ConfigurationProperties("vesta.server")
public class VestaServerProperties {

    /** Whether this servlet web application is a central Vesta server: the REST API under /vesta (IDs of genMethod 2) and the Java client's batch endpoint /vesta/v1/ids (genMethod 1), both under one machine ID of vesta.machine-id.server-range. */
    private boolean enabled = false;

    /** Whether the server issues Vesta IDs (the REST API and /vesta/v1/ids) under a machine ID of its own. False: a server of segments only (with vesta.segment.enabled=true), which serves /vesta/segment/** and takes no machine ID. */
    private boolean idsEnabled = true;

    /** Whether POST /vesta/makeid builds IDs from given fields. Off by default: making IDs by hand is an operator's act (repairs, backfills), not an application's. */
    private boolean makeIdEnabled = false;

    /** Whether DELETE /vesta/admin/leases/{machineId} may end a machine-ID lease (db, redis, zookeeper and etcd strategies). Off by default; needs vesta.server.admin-tokens. */
    private boolean leaseAdminEnabled = false;

    /** Bearer tokens that may call the ID, segment and status endpoints under /vesta/ (everything there but /vesta/admin/** and POST /vesta/makeid). Unset, together with admin-tokens: those endpoints are open to anyone who can reach the server (a trusted network). Set: Actuator's health shows its details only to callers with a token. Each 16 to 1024 visible ASCII characters. */
    private List<String> tokens = new ArrayList<>();

    /** Bearer tokens that may also call the operator's endpoints: POST /vesta/makeid and everything under /vesta/admin/, reads included. Required by make-id-enabled and lease-admin-enabled. Each 16 to 1024 visible ASCII characters. */
    private List<String> adminTokens = new ArrayList<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isIdsEnabled() {
        return idsEnabled;
    }

    public void setIdsEnabled(boolean idsEnabled) {
        this.idsEnabled = idsEnabled;
    }

    public boolean isMakeIdEnabled() {
        return makeIdEnabled;
    }

    public void setMakeIdEnabled(boolean makeIdEnabled) {
        this.makeIdEnabled = makeIdEnabled;
    }

    public boolean isLeaseAdminEnabled() {
        return leaseAdminEnabled;
    }

    public void setLeaseAdminEnabled(boolean leaseAdminEnabled) {
        this.leaseAdminEnabled = leaseAdminEnabled;
    }

    public List<String> getTokens() {
        return tokens;
    }

    public void setTokens(List<String> tokens) {
        this.tokens = tokens;
    }

    public List<String> getAdminTokens() {
        return adminTokens;
    }

    public void setAdminTokens(List<String> adminTokens) {
        this.adminTokens = adminTokens;
    }

    @Override
    public String toString() {
        // Never the tokens themselves.
        return "VestaServerProperties[enabled=" + enabled + ", idsEnabled=" + idsEnabled + ", makeIdEnabled=" + makeIdEnabled
                + ", leaseAdminEnabled=" + leaseAdminEnabled + ", tokens=" + tokens.size() + ", adminTokens="
                + adminTokens.size() + "]";
    }
}
