package io.vesta.autoconfigure.jdbc;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;
import org.springframework.util.ClassUtils;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Vesta's beans that read tables the application may create itself: the database machine-ID lease
 * ({@code DbMachineIdProvider}, which takes its lease when the ID service is built) and segment mode
 * ({@code SegmentIdService}). Boot makes them depend on every database initializer of the context
 * ({@code spring.sql.init}, Flyway, Liquibase), so the application's migrations run first. Named, not referenced:
 * {@code vesta-jdbc} is optional here.
 */
public final class VestaDependsOnDatabaseInitializationDetector extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

    private static final String[] TYPES = { "io.vesta.machine.db.DbMachineIdProvider", "io.vesta.segment.SegmentIdService" };

    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        ClassLoader classLoader = VestaDependsOnDatabaseInitializationDetector.class.getClassLoader();
        Set<Class<?>> types = new LinkedHashSet<>();
        for (String type : TYPES) {
            if (ClassUtils.isPresent(type, classLoader)) {
                types.add(ClassUtils.resolveClassName(type, classLoader));
            }
        }
        return types;
    }
}
