package io.vesta.mybatis;

class H2VestaMyBatisInterceptorTests extends VestaMyBatisInterceptorContract {

    private final String url = TestSqlSessionFactory.h2();

    @Override
    String url() {
        return url;
    }
}
