package dev.mrtr;

import java.util.stream.Stream;
import mrtr.tests.BindingTestsKt;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The Kotlin binding's unit tests (bindings-ffi/uniffi/tests/kotlin/BindingTests.kt: the
 * exception per area of every rule, panics, the key ring's attacks, the machines, the
 * transports), one JUnit test each.
 */
class KotlinBindingTest {
  @TestFactory
  Stream<DynamicTest> kotlinBindingTests() {
    BindingTestsKt.getTests().clear();
    BindingTestsKt.registerTests();
    return BindingTestsKt.getTests().entrySet().stream()
        .map(t -> DynamicTest.dynamicTest(t.getKey(), () -> t.getValue().invoke()));
  }
}
