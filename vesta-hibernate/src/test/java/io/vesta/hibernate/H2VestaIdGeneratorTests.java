package io.vesta.hibernate;

import java.util.Map;

class H2VestaIdGeneratorTests extends VestaIdGeneratorContract {

    @Override
    TestSessionFactory start() {
        return TestSessionFactory.start(TestSessionFactory.h2(), Map.of(), ENTITIES);
    }
}
