package io.vesta.autoconfigure.mybatis;

class H2VestaMyBatisInterceptorTests extends VestaMyBatisInterceptorContract {

    private final String url = MyBatisTestSupport.h2();

    @Override
    String url() {
        return url;
    }
}
