package io.vesta.autoconfigure.segment;

import org.h2.jdbcx.JdbcDataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/** An H2 DataSource whose connections report another database product, to reach the no-script path. */
final class ProductNameDataSource extends DelegatingDataSource {

    private final String productName;

    ProductNameDataSource(String url, String productName) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url);
        setTargetDataSource(h2);
        this.productName = productName;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (method.getName().equals("getMetaData")) {
                        DatabaseMetaData metaData = (DatabaseMetaData) result;
                        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DatabaseMetaData.class},
                                (p, m, a) -> m.getName().equals("getDatabaseProductName") ? productName : invoke(metaData, m, a));
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
