package io.vesta.autoconfigure.mybatis;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Vesta IDs for MyBatis inserts: {@code vesta.mybatis.*}. */
@ConfigurationProperties("vesta.mybatis")
public class VestaMyBatisProperties {

    /** Property of inserted objects that also gets a Vesta ID when it is null, if it is a Long, long or String, in objects that have no @VestaId property. Unset (the default): only @VestaId properties. Statements whose keys the database or a selectKey generates are never touched. */
    private String idProperty;

    public String getIdProperty() {
        return idProperty;
    }

    public void setIdProperty(String idProperty) {
        this.idProperty = idProperty;
    }
}
