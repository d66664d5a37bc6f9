package io.vesta.autoconfigure.mybatis;

import io.vesta.mybatis.VestaMyBatisInterceptor;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Vesta IDs for MyBatis inserts: {@code vesta.mybatis.*}. */
@ConfigurationProperties("vesta.mybatis")
public class VestaMyBatisProperties {

    /** Property of inserted objects that gets a Vesta ID when it is null, if it is a Long, long or String; a property annotated @VestaId takes precedence. Empty: only @VestaId properties. */
    private String idProperty = VestaMyBatisInterceptor.DEFAULT_ID_PROPERTY;

    public String getIdProperty() {
        return idProperty;
    }

    public void setIdProperty(String idProperty) {
        this.idProperty = idProperty;
    }
}
