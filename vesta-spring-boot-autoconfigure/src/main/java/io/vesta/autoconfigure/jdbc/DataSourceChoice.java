package io.vesta.autoconfigure.jdbc;

import org.springframework.beans.factory.ListableBeanFactory;

import javax.sql.DataSource;

/**
 * Why a Vesta capability that needs the application's one {@code DataSource} found none to use, in the words of a
 * start-up failure: none at all, or several and none of them primary.
 */
public final class DataSourceChoice {

    /** What a property that needs a DataSource accepts, as a phrase that completes "set it to ...". */
    public static final String ONE_DATA_SOURCE = "one DataSource to use (spring.datasource.url, or a DataSource bean;"
            + " of several, one marked @Primary)";

    private DataSourceChoice() {
    }

    /** "needs a DataSource and the application has none", or the count and names of the ones it has. */
    public static String missing(ListableBeanFactory beanFactory) {
        String[] names = beanFactory.getBeanNamesForType(DataSource.class);
        return names.length == 0 ? "needs a DataSource and the application has none"
                : "needs one DataSource and the application has " + names.length + ", none of them primary: "
                        + String.join(", ", names);
    }
}
