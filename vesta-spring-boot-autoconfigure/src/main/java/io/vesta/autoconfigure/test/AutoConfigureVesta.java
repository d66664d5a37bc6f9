package io.vesta.autoconfigure.test;

import io.vesta.IdService;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Vesta in a test, on a {@code @SpringBootTest} or on any slice ({@code @WebMvcTest}, {@code @JsonTest}, ...): the
 * {@link IdService}, the {@code @VestaId} wiring and Jackson's IDs as strings, with the test's settings below. The
 * {@code @DataJpaTest}, {@code @JdbcTest} and {@code @MybatisTest} slices include Vesta without it.
 *
 * <p>A test keeps no high-water marks by default: a test whose clock runs ahead (a {@code TimeSource} bean of its
 * own) would otherwise leave a mark that every later run under the same machine ID refuses to start behind, and
 * two cached contexts of one test run under the same machine ID would contend for the mark's lock.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("vesta")
public @interface AutoConfigureVesta {

    /**
     * {@code vesta.machine-id.value}: the machine ID of the test's {@code IdService} with the property strategy;
     * by default the application's.
     */
    @PropertyMapping(value = "machine-id.value", skip = PropertyMapping.Skip.ON_DEFAULT_VALUE)
    long machineId() default -1;

    /** {@code vesta.time-store.enabled}: whether the test keeps high-water marks; off by default. */
    @PropertyMapping("time-store.enabled")
    boolean timeStore() default false;
}
