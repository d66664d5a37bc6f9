package io.vesta.autoconfigure.jpa;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class H2VestaIdGeneratorTests extends VestaIdGeneratorContract {

    @Override
    ApplicationContextRunner runner() {
        return JpaTestSupport.runner().withPropertyValues(JpaTestSupport.h2());
    }
}
