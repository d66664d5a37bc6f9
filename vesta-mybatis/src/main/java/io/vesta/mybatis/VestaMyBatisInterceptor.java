package io.vesta.mybatis;

import io.vesta.IdFormat;
import io.vesta.IdPropertyType;
import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.VestaId;
import org.apache.ibatis.binding.MapperMethod;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.executor.keygen.NoKeyGenerator;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.mapping.SqlCommandType;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;
import org.apache.ibatis.reflection.MetaObject;
import org.apache.ibatis.reflection.Reflector;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.type.SimpleTypeRegistry;

import java.beans.Introspector;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fills the ID property of the objects an INSERT statement writes, when it is null ({@code 0} for a primitive
 * {@code long}): the property annotated {@link VestaId @VestaId}, or else, only when one is named, the
 * {@code idProperty} ({@code vesta.mybatis.id-property} in Spring Boot) when it is a {@code Long}, {@code long} or
 * {@code String}. A {@code String} property gets the ID in the {@code IdFormat} of {@code @VestaId(format = ...)},
 * decimal digits without one; a format on a {@code Long}/{@code long}, two formats, or a format beside a segment tag
 * fail the first insert of the class, naming the class, the property and the reason. Other statements, and IDs the
 * caller already set, are left alone.
 * <p>
 * A statement whose key something else generates is never touched: one with a key generator that writes key
 * properties ({@code useGeneratedKeys} with a {@code keyProperty}, or a {@code <selectKey>}). The key belongs to the
 * database there. A global {@code useGeneratedKeys} without a {@code keyProperty} writes nothing back, so it does
 * not count.
 * <p>
 * Plain MyBatis adds it with {@code configuration.addInterceptor(new VestaMyBatisInterceptor(idService, null))}
 * ({@code @VestaId} properties only), or with a property name to fill by name too.
 * <p>
 * The parameter may be one object, a {@code Collection} or array of them (a {@code <foreach>} insert), or the map
 * MyBatis makes of {@code @Param} arguments, which holds each argument under its name and again under
 * {@code paramN}: every object gets one ID, however many keys lead to it, and a batch of N objects takes its N IDs
 * in one reservation. {@code ExecutorType.BATCH} calls {@code Executor.update} once per statement too.
 */
@Intercepts(@Signature(type = Executor.class, method = "update", args = { MappedStatement.class, Object.class }))
public final class VestaMyBatisInterceptor implements Interceptor {

    private static final int MAX_BATCH = 100_000;

    private final IdService idService;

    private final String idProperty;

    private final SegmentNumbers segments;

    private final Map<Class<?>, IdProperty> idProperties = new ConcurrentHashMap<>();

    /**
     * Creates the interceptor.
     * @param idService where the IDs come from
     * @param idProperty the property filled by name in objects that have no {@code @VestaId} property, for example
     *        {@code "id"}; {@code null} or blank: only {@code @VestaId} properties
     */
    public VestaMyBatisInterceptor(IdService idService, String idProperty) {
        this(idService, idProperty, null);
    }

    /**
     * Creates the interceptor, with the segment numbers that {@code @VestaId(segment = "...")} properties are filled
     * from.
     * @param segments the application's segment numbers ({@code SegmentIdService}); {@code null} if it has none, and
     *        then inserting an object with such a property fails, naming it and its tag
     */
    public VestaMyBatisInterceptor(IdService idService, String idProperty, SegmentNumbers segments) {
        this.idService = idService;
        this.idProperty = idProperty == null ? "" : idProperty.trim();
        this.segments = segments;
    }

    @Override
    public Object intercept(Invocation invocation) throws Throwable {
        Object[] args = invocation.getArgs();
        MappedStatement statement = (MappedStatement) args[0];
        if (statement.getSqlCommandType() == SqlCommandType.INSERT && args[1] != null && !keyedElsewhere(statement)) {
            assignIds(statement.getConfiguration(), args[1]);
        }
        return invocation.proceed();
    }

    /** Whether a key generator of the statement writes its keys: they are the database's (or the statement's). */
    private static boolean keyedElsewhere(MappedStatement statement) {
        String[] keyProperties = statement.getKeyProperties();
        return !(statement.getKeyGenerator() instanceof NoKeyGenerator) && keyProperties != null && keyProperties.length > 0;
    }

    /** Gives every object in {@code parameter} whose ID property is unset a new ID, or its tag's next number. */
    private void assignIds(Configuration configuration, Object parameter) {
        List<Target> all = new ArrayList<>();
        collect(configuration, parameter, Collections.newSetFromMap(new IdentityHashMap<>()), all);
        Map<String, List<Target>> bySegment = new java.util.LinkedHashMap<>();
        List<Target> targets = new ArrayList<>();
        for (Target target : all) {
            if (target.segment().isEmpty()) {
                targets.add(target);
            } else {
                bySegment.computeIfAbsent(target.segment(), tag -> new ArrayList<>()).add(target);
            }
        }
        bySegment.forEach(this::assignSegmentNumbers);
        if (targets.isEmpty()) {
            return;
        }
        if (targets.size() == 1) {
            targets.get(0).set(idService.genId());
            return;
        }
        for (int from = 0; from < targets.size(); from += MAX_BATCH) {
            int count = Math.min(MAX_BATCH, targets.size() - from);
            long[] ids = idService.genIds(count);
            for (int i = 0; i < count; i++) {
                targets.get(from + i).set(ids[i]);
            }
        }
    }

    private void assignSegmentNumbers(String tag, List<Target> targets) {
        Target first = targets.get(0);
        if (segments == null) {
            throw new IllegalStateException("@VestaId(segment = \"" + tag + "\") on " + first.owner() + "." + first.property()
                    + " needs the segment numbers of tag '" + tag + "', but this interceptor has none: the Vesta starter"
                    + " gives it the application's SegmentIdService (vesta.segment.enabled=true); without Spring, pass one"
                    + " to new VestaMyBatisInterceptor(idService, idProperty, segments)");
        }
        for (int from = 0; from < targets.size(); from += MAX_BATCH) {
            int count = Math.min(MAX_BATCH, targets.size() - from);
            long[] numbers;
            try {
                numbers = segments.nextIds(tag, count);
            } catch (RuntimeException e) {
                throw new IllegalStateException("@VestaId(segment = \"" + tag + "\") on " + first.owner() + "."
                        + first.property() + " could not take a number of tag '" + tag + "': " + e.getMessage(), e);
            }
            for (int i = 0; i < count; i++) {
                targets.get(from + i).set(numbers[i]);
            }
        }
    }

    private void collect(Configuration configuration, Object value, Set<Object> seen, List<Target> targets) {
        if (value == null || !seen.add(value)) {
            return;
        }
        if (value instanceof MapperMethod.ParamMap<?>) {
            for (Object argument : ((Map<?, ?>) value).values()) {
                collect(configuration, argument, seen, targets);
            }
        }
        else if (value instanceof Iterable<?> iterable) {
            for (Object element : iterable) {
                collect(configuration, element, seen, targets);
            }
        }
        else if (value instanceof Object[] array) {
            for (Object element : array) {
                collect(configuration, element, seen, targets);
            }
        }
        else if (value instanceof Map<?, ?> row) {
            // A map written as a row: MyBatis reads #{id} from its key.
            if (!idProperty.isEmpty() && row.containsKey(idProperty) && row.get(idProperty) == null) {
                targets.add(new Target(configuration.newMetaObject(value), idProperty, IdPropertyType.LONG,
                        IdFormat.DECIMAL, "", "a map"));
            }
        }
        else if (!SimpleTypeRegistry.isSimpleType(value.getClass()) && !value.getClass().isArray()) {
            IdProperty property = idProperties.computeIfAbsent(value.getClass(),
                    type -> resolve(configuration, type));
            if (property != IdProperty.NONE) {
                MetaObject object = configuration.newMetaObject(value);
                if (property.type().isUnset(object.getValue(property.name()))) {
                    targets.add(new Target(object, property.name(), property.type(), property.format(),
                            property.segment(), value.getClass().getName()));
                }
            }
        }
    }

    private IdProperty resolve(Configuration configuration, Class<?> type) {
        IdProperty annotated = annotatedProperty(type);
        if (annotated != null) {
            return annotated;
        }
        if (idProperty.isEmpty()) {
            return IdProperty.NONE;
        }
        Reflector reflector = configuration.getReflectorFactory().findForClass(type);
        if (!reflector.hasGetter(idProperty) || !reflector.hasSetter(idProperty)) {
            return IdProperty.NONE;
        }
        // An id of another type (an Integer key, say) belongs to the database, not to Vesta.
        return IdPropertyType.of(reflector.getSetterType(idProperty))
                .map(idType -> new IdProperty(idProperty, idType, IdFormat.DECIMAL, ""))
                .orElse(IdProperty.NONE);
    }

    private static IdProperty annotatedProperty(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && field.isAnnotationPresent(VestaId.class)) {
                    return annotated(type, field.getName(), field.getType(), field.getAnnotation(VestaId.class));
                }
            }
        }
        for (Method method : type.getMethods()) {
            if (method.isAnnotationPresent(VestaId.class)) {
                String name = method.getName();
                VestaId marker = method.getAnnotation(VestaId.class);
                if (name.startsWith("set") && method.getParameterCount() == 1) {
                    return annotated(type, Introspector.decapitalize(name.substring(3)), method.getParameterTypes()[0], marker);
                }
                if (name.startsWith("get") && method.getParameterCount() == 0) {
                    return annotated(type, Introspector.decapitalize(name.substring(3)), method.getReturnType(), marker);
                }
            }
        }
        return null;
    }

    private static IdProperty annotated(Class<?> owner, String name, Class<?> type, VestaId marker) {
        IdPropertyType idType = IdPropertyType.of(type).orElseThrow(() -> new IllegalStateException("@VestaId on "
                + owner.getName() + "." + name + " needs a Long, long or String property, but it is a " + type.getName()));
        IdFormat format = idType.format(marker, owner.getName() + "." + name);
        String segment = marker.segment();
        if (!segment.isEmpty()) {
            SegmentNumbers.requireValidBizTag("@VestaId(segment) of " + owner.getName() + "." + name, segment);
        }
        return new IdProperty(name, idType, format, segment);
    }

    /**
     * An ID property; {@code format} is the text form of a {@code String} one, {@code segment} its tag for
     * {@code @VestaId(segment = ...)}, empty for Vesta IDs.
     */
    private record IdProperty(String name, IdPropertyType type, IdFormat format, String segment) {
        static final IdProperty NONE = new IdProperty("", IdPropertyType.LONG, IdFormat.DECIMAL, "");
    }

    private record Target(MetaObject object, String property, IdPropertyType type, IdFormat format, String segment,
            String owner) {
        void set(long id) {
            object.setValue(property, type.valueOf(id, format));
        }
    }
}
