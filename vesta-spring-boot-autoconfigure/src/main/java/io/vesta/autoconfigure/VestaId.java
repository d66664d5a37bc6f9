package io.vesta.autoconfigure;

import io.vesta.autoconfigure.jpa.VestaIdGenerator;
import org.hibernate.annotations.IdGeneratorType;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a property that holds a Vesta ID ({@code Long}, {@code long} or {@code String}), filled from the
 * application context's {@link io.vesta.IdService} when the object is inserted.
 * <ul>
 * <li><b>Hibernate/JPA</b>: {@code @Id @VestaId} or {@code @Id @GeneratedValue @VestaId} on an identifier; on a
 * package ({@code package-info.java}), every {@code @Id @GeneratedValue} (strategy {@code AUTO}, no generator
 * name) of the entities declared in that package. An ID the caller set before {@code persist} is kept.</li>
 * <li><b>MyBatis</b>: the property of an inserted object that receives the ID when it is null (besides the
 * property named by {@code vesta.mybatis.id-property}).</li>
 * <li><b>Jackson</b>: with {@code vesta.jackson.ids-as-strings=true}, a {@code Long}/{@code long} property is
 * written as a JSON string and read from a string or a number.</li>
 * </ul>
 * The Hibernate meta-annotation is only read by Hibernate: an application without Hibernate on its classpath can
 * use {@code @VestaId} with MyBatis and Jackson, because the JVM drops annotations whose type it cannot load.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PACKAGE })
@IdGeneratorType(VestaIdGenerator.class)
public @interface VestaId {
}
