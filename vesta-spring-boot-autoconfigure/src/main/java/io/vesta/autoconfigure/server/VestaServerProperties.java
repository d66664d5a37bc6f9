package io.vesta.autoconfigure.server;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Configuration of a central Vesta server: {@code vesta.server.*}. */
@ConfigurationProperties("vesta.server")
public class VestaServerProperties {

    /** Whether this servlet web application is a central Vesta server: the REST API under /vesta (IDs of genMethod 2) and the Java client's batch endpoint /vesta/v1/ids (genMethod 1), both under one machine ID of vesta.machine-id.server-range. */
    private boolean enabled = false;

    /** Whether the server issues Vesta IDs (the REST API and /vesta/v1/ids) under a machine ID of its own. False: a server of segments only (with vesta.segment.enabled=true), which serves /vesta/segment/** and takes no machine ID. */
    private boolean idsEnabled = true;

    /** Whether POST /vesta/makeid builds IDs from given fields. Off by default: making IDs by hand is an operator's act (repairs, backfills), not an application's. */
    private boolean makeIdEnabled = false;

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
}
