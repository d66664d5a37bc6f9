package io.vesta;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a property that holds a Vesta ID ({@code Long}, {@code long} or {@code String}, see {@link IdPropertyType}),
 * filled from an {@link IdService} when the object is inserted. What reads it is the adapter of each framework, in
 * its own module; the annotation itself refers to no framework, so a project that uses it with MyBatis or Jackson
 * alone compiles without warnings and without Hibernate on its class path.
 * <ul>
 * <li><b>Hibernate/JPA</b> ({@code vesta-hibernate}): {@code @Id @VestaId} or {@code @Id @GeneratedValue @VestaId}
 * on an identifier; on a package ({@code package-info.java}), every {@code @Id @GeneratedValue} (strategy
 * {@code AUTO}, no generator name, no generator annotation of its own) of the entities declared in that package. An
 * ID the caller set before {@code persist} is kept. {@code vesta-hibernate} registers a Hibernate {@code Integrator}
 * through {@code META-INF/services} that gives these identifiers the Vesta generator when each
 * {@code SessionFactory} starts, so nothing else needs to be on the entity.</li>
 * <li><b>MyBatis</b> ({@code vesta-mybatis}): the property of an inserted object that receives the ID when it is
 * unset (besides the property named by {@code vesta.mybatis.id-property}).</li>
 * <li><b>Jackson</b> ({@code vesta-jackson}): with its module registered ({@code vesta.jackson.ids-as-strings=true}
 * in Spring Boot), a {@code Long}/{@code long} property is written as a JSON string, in decimal or in the module's
 * {@link IdFormat}, and read from such a string or a number.</li>
 * </ul>
 * With {@link #segment()} the property is filled from a segment tag's dense numbers instead (Hibernate, MyBatis,
 * Spring Data); a missing {@link SegmentNumbers} or an unknown tag fails start-up or the insert, naming the entity,
 * the property and the tag.
 * <p>
 * With {@link #format()} a {@code String} property is filled with the ID in that {@link IdFormat} (Hibernate, MyBatis,
 * Spring Data), and Jackson writes and reads a {@code Long}/{@code long} property in it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PACKAGE })
public @interface VestaId {

    /**
     * The segment tag whose dense numbers fill this property instead of Vesta IDs, such as {@code "orders"}: the
     * application's {@link SegmentNumbers} (segment mode, {@code vesta.segment.enabled=true}) gives the next number
     * of the tag. Empty (the default): a Vesta ID from the {@link IdService}. Not on a package.
     */
    String segment() default "";

    /**
     * The text form of the ID, such as {@code @VestaId(format = IdFormat.BASE32) String id} for 13 Crockford base-32
     * characters that sort as the IDs do. At most one element; empty (the default) means unset:
     * <ul>
     * <li>on a {@code String} property that Hibernate, MyBatis or Spring Data fill, the ID in this format; unset:
     * its decimal digits. A format on a {@code Long}/{@code long} property they fill, or together with
     * {@link #segment()}, is refused when the mapping is read, naming the entity, the property and the reason;</li>
     * <li>on a {@code Long}/{@code long} property that Jackson writes with the {@code vesta-jackson} module, the
     * format of this property, in place of the module's; unset: the module's.</li>
     * </ul>
     * Two or more formats are refused, naming the entity and the property.
     */
    IdFormat[] format() default {};

    /**
     * Whether this {@code Long}/{@code long} property is shown outside only in its opaque public form
     * ({@link PublicIds#toPublic}): Jackson ({@code vesta-jackson}, with a {@link PublicIds} given to its module, in
     * Spring Boot the {@code PublicIds} bean of {@code vesta.public-id.enabled=true}) writes the public string and
     * reads only a public string, refusing a JSON number or a decimal string, so the raw ID never crosses the
     * boundary either way. Without a {@link PublicIds} the mapper refuses the property, naming it, rather than write
     * the raw ID. The stored value (database, Hibernate, MyBatis) stays the plain ID. Not on a package.
     */
    boolean publicId() default false;
}
