package io.vesta.server;

import io.etcd.jetcd.Client;
import io.lettuce.core.RedisURI;
import io.vesta.IdFormat;
import io.vesta.layout.IdCodec;
import io.vesta.test.TestVariables;
import io.vesta.test.lease.TcpRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser: Debian's Chromium, headless, driven through the chromedriver of the
 * chromium-driver package, against a running vesta-server that leases its machine ID from a table on PostgreSQL.
 * The page must show the lease table with this node's row, and decode an ID typed into its form, under its strict
 * Content-Security-Policy: the browser reports no violation while it does, and refuses an inline script put into
 * the page (so the policy is in force, and a violation would be seen). With an epoch that leaves the time field 200
 * days, the page shows when it runs out, the time left and the warning. A screenshot is saved as
 * {@code target/dashboard.png}. On etcd the same table lists the keys of the server's prefix.
 */
class DashboardBrowserTests {

    private static final String TOKEN = "dashboard-test-token-5b1e0c";

    @TempDir
    Path dir;

    private ConfigurableApplicationContext server;
    private WebDriver browser;
    private final List<AutoCloseable> closeAfterServer = new ArrayList<>();
    private ChromeDriverService driverService;
    private String url;
    private String leaseTable;
    private String segmentTable;

    @AfterEach
    void stop() throws Exception {
        try {
            if (browser != null) {
                browser.quit();
            }
            if (driverService != null) {
                driverService.stop();
            }
            if (server != null) {
                server.close();
            }
            for (AutoCloseable closeable : closeAfterServer) {
                closeable.close();
            }
        } finally {
            if (url != null) {
                TestEnvironment.drop(url, leaseTable, segmentTable);
            }
        }
    }

    @Test
    void theDashboardShowsThisNodesLeaseAndDecodesATypedId() throws Exception {
        Path chromium = TestEnvironment.executable(TestEnvironment.CHROMIUM);
        Path chromedriver = TestEnvironment.executable(TestEnvironment.CHROMEDRIVER);
        url = TestEnvironment.postgres();
        leaseTable = TestEnvironment.table("vesta_machine_dash");
        segmentTable = TestEnvironment.table("vesta_segment_dash");
        // An epoch that leaves the 30-bit seconds of max-peak 200 days: the page must show the time left and warn.
        Instant nearEnd = Instant.now().minusSeconds(1L << 30).plus(Duration.ofDays(200)).truncatedTo(ChronoUnit.SECONDS);
        server = new SpringApplicationBuilder(VestaServerApplication.class).run("--server.port=0",
                "--vesta.server.data-dir=" + dir, "--spring.datasource.url=" + url,
                "--vesta.machine-id.strategy=db", "--vesta.machine-id.db.table=" + leaseTable,
                "--vesta.machine-id.db.initialize-schema=always", "--vesta.machine-id.db.owner=dashboard-test",
                "--vesta.segment.table=" + segmentTable, "--vesta.server.admin-tokens=" + TOKEN,
                "--vesta.epoch=" + nearEnd);
        String base = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
        long id = issue(base);
        long machine = new IdCodec(IdCodec.DEFAULT_EPOCH).expId(id).machine();
        TestEnvironment.insertSegmentTag(url, segmentTable, "orders");
        get(base, "/vesta/segment/orders?count=5");

        WebDriverWait wait = openWithToken(chromium, chromedriver, base);
        Instant end = nearEnd.plusSeconds(1L << 30).minusMillis(1);
        assertThat(nodeField(wait, "time field ends")).isEqualTo(end.toString());
        assertThat(nodeField(wait, "time left")).isIn("199 days", "200 days");
        WebElement warning = browser.findElement(By.id("time-warning"));
        assertThat(warning.isDisplayed()).isTrue();
        assertThat(warning.getText()).contains("runs out at " + end).contains("vesta.epoch");
        WebElement ownRow = wait.until(b -> b.findElement(By.cssSelector("#lease-table tbody tr.self")));
        assertThat(ownRow.getDomAttribute("data-machine-id")).isEqualTo(Long.toString(machine));
        assertThat(ownRow.getText()).contains(machine + " (this node)").contains("live").contains("dashboard-test");
        assertThat(browser.findElement(By.id("lease-store")).getText()).contains("table " + leaseTable);
        wait.until(b -> !b.findElements(By.cssSelector("#segment-table tbody tr[data-biz-tag='orders']")).isEmpty());

        browser.findElement(By.id("decode-input")).sendKeys(Long.toString(id));
        browser.findElement(By.id("decode-button")).click();
        wait.until(b -> !b.findElements(By.cssSelector("#decode-result dd[data-field='machine']")).isEmpty());
        assertThat(field("id")).isEqualTo(Long.toString(id));
        assertThat(field("machine")).isEqualTo(Long.toString(machine));
        assertThat(field("genMethod")).isEqualTo("2");
        assertThat(field("type")).isEqualTo("MAX_PEAK");
        assertThat(field("base32")).isEqualTo(IdFormat.BASE32.format(id));
        assertThat(field("base62")).isEqualTo(IdFormat.BASE62.format(id));

        // The same ID in its compact forms, the form chosen beside the box; base 32 in lower case, as people type it.
        for (IdFormat format : new IdFormat[] { IdFormat.BASE32, IdFormat.BASE62 }) {
            String typed = format == IdFormat.BASE32 ? format.format(id).toLowerCase(Locale.ROOT) : format.format(id);
            decode(typed, format.name().toLowerCase(Locale.ROOT));
            wait.until(b -> !b.findElements(By.cssSelector("#decode-result dd[data-field='machine']")).isEmpty());
            assertThat(field("id")).as(format.name()).isEqualTo(Long.toString(id));
            assertThat(field("machine")).as(format.name()).isEqualTo(Long.toString(machine));
        }
        // A decimal ID with base 32 chosen: the server's problem names the input and the forms.
        decode(Long.toString(id), "base32");
        wait.until(b -> b.findElement(By.id("decode-error")).isDisplayed());
        assertThat(browser.findElement(By.id("decode-error")).getText()).contains("is not a BASE32 ID")
                .contains("format=base62");
        assertThat(browser.findElements(By.cssSelector("#decode-result dd"))).isEmpty();

        HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(DashboardHeaders.CONTENT_SECURITY_POLICY);
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(violations()).as("the browser's log while the page worked").isEmpty();
        Object inlineRan = ((JavascriptExecutor) browser).executeScript("const s = document.createElement('script');"
                + " s.textContent = 'window.vestaInlineRan = true;'; document.head.appendChild(s);"
                + " return window.vestaInlineRan === true;");
        assertThat(inlineRan).as("an inline script under the policy").isEqualTo(false);
        assertThat(violations()).as("the refused inline script is in the browser's log").isNotEmpty();

        Path screenshot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path saved = Path.of("target", "dashboard.png");
        Files.createDirectories(saved.getParent());
        Files.copy(screenshot, saved, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(saved)).isPositive();
    }

    @Test
    void theDashboardShowsAServerOnItsFallbackMachineId() throws Exception {
        Path chromium = TestEnvironment.executable(TestEnvironment.CHROMIUM);
        Path chromedriver = TestEnvironment.executable(TestEnvironment.CHROMEDRIVER);
        RedisURI redis = RedisURI.create(TestVariables.require("VESTA_TEST_REDIS_URL", "redis://127.0.0.1:6379"));
        // Redis out of reach at start-up: every connection to it through the relay is reset.
        TcpRelay relay = new TcpRelay(redis.getHost(), redis.getPort());
        closeAfterServer.add(relay);
        relay.cut();
        server = new SpringApplicationBuilder(VestaServerApplication.class).run("--server.port=0",
                "--vesta.server.data-dir=" + dir, "--vesta.machine-id.strategy=redis",
                "--vesta.machine-id.redis.url=redis://127.0.0.1:" + relay.port(),
                "--vesta.machine-id.redis.key=vesta-dashboard-fallback:" + UUID.randomUUID(),
                "--vesta.machine-id.server-range.max=1015", "--vesta.machine-id.fallback.value=1016",
                "--vesta.server.admin-tokens=" + TOKEN);
        String base = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
        long id = issue(base);
        assertThat(new IdCodec(IdCodec.DEFAULT_EPOCH).expId(id).machine()).isEqualTo(1016);
        assertThat(get(base, "/actuator/health/readiness")).contains("\"status\":\"UP\"")
                .containsPattern("\"machineIdFallback\":\\{\"first\":1016,\"last\":1016,\"size\":1,\"active\":true,"
                        + "\"since\":\"[0-9T:.-]+Z\",\"idsIssued\":1}");
        assertThat(get(base, "/actuator/prometheus"))
                .contains("vesta_machine_id_fallback_active{gen_method=\"rest\",machine=\"1016\",type=\"max-peak\"} 1.0")
                .contains("vesta_machine_id_fallback_active{gen_method=\"central-server\",machine=\"1016\",type=\"max-peak\"} 1.0")
                .contains("vesta_machine_id_fallback_issued_total{gen_method=\"rest\",machine=\"1016\",type=\"max-peak\"} 1.0");

        WebDriverWait wait = openWithToken(chromium, chromedriver, base);
        assertThat(nodeField(wait, "machine IDs")).isEqualTo("1016");
        assertThat(nodeField(wait, "fallback machine IDs")).startsWith("1016, IN USE by REST and batches;");
        WebElement warning = browser.findElement(By.id("fallback-warning"));
        assertThat(warning.isDisplayed()).isTrue();
        assertThat(warning.getText()).contains("On the fallback machine ID 1016 (REST and batches)")
                .contains("cannot give this server a leased machine ID");
        assertThat(violations()).as("the browser's log while the page worked").isEmpty();
    }

    @Test
    void theDashboardListsTheKeysOfAnEtcdPrefix() throws Exception {
        Path chromium = TestEnvironment.executable(TestEnvironment.CHROMIUM);
        Path chromedriver = TestEnvironment.executable(TestEnvironment.CHROMEDRIVER);
        List<URI> endpoints = TestVariables.etcdEndpoints();
        String prefix = "/vesta-dashboard-test/" + UUID.randomUUID() + "/";
        Client etcd = Client.builder().endpoints(endpoints).build();
        closeAfterServer.add(() -> {
            try (etcd) {
                EtcdServerTests.remove(etcd, prefix);
            }
        });
        EtcdServerTests.markAsInUse(etcd, prefix);
        server = new SpringApplicationBuilder(VestaServerApplication.class).run("--server.port=0",
                "--vesta.server.data-dir=" + dir, "--vesta.machine-id.strategy=etcd",
                "--vesta.machine-id.etcd.endpoints=" + endpoints.get(0), "--vesta.machine-id.etcd.prefix=" + prefix,
                "--vesta.machine-id.etcd.owner=dashboard-etcd", "--vesta.server.admin-tokens=" + TOKEN);
        String base = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");

        WebDriverWait wait = openWithToken(chromium, chromedriver, base);

        // The page rebuilds the table every two seconds: the row is read whole, again if it was replaced meanwhile.
        String ownRow = wait.ignoring(StaleElementReferenceException.class).until(b -> {
            WebElement row = b.findElement(By.cssSelector("#lease-table tbody tr.self"));
            return row.getDomAttribute("data-machine-id") + ": " + row.getText();
        });
        assertThat(ownRow).startsWith("1023: ").contains("1023 (this node)").contains("live").contains("dashboard-etcd");
        assertThat(browser.findElement(By.id("lease-store")).getText()).contains("etcd prefix " + prefix)
                .contains("range 924-1023");
        assertThat(browser.findElement(By.id("lease-message")).getText()).startsWith("1 of 100 machine IDs leased, 1 live");
        assertThat(violations()).as("the browser's log while the page worked").isEmpty();
    }

    /** A headless Chromium on the dashboard, with the admin token typed in, once the page shows the server UP. */
    private WebDriverWait openWithToken(Path chromium, Path chromedriver, String base) throws Exception {
        driverService = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile()).usingAnyFreePort()
                .withLogFile(dir.resolve("chromedriver.log").toFile()).build();
        ChromeOptions options = new ChromeOptions().setBinary(chromium.toFile()).addArguments("--headless",
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--no-first-run", "--disable-dev-shm-usage", "--window-size=1400,1400",
                "--user-data-dir=" + Files.createDirectory(dir.resolve("chromium-profile")));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        browser = new ChromeDriver(driverService, options);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        browser.get(base + "/");

        // The server requires a token: the page says so until one is typed in.
        wait.until(b -> b.findElement(By.id("status")).getText().equals("token needed"));
        browser.findElement(By.id("token-input")).sendKeys(TOKEN);
        browser.findElement(By.id("token-button")).click();

        wait.until(b -> b.findElement(By.id("status")).getText().equals("UP"));
        return wait;
    }

    /** The browser's log lines about the Content-Security-Policy since the last call. */
    private List<String> violations() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage)
                .filter(message -> message.contains("Content Security Policy")).toList();
    }

    /** A field of the node's list, which the page rebuilds every two seconds: read again if it was replaced meanwhile. */
    private static String nodeField(WebDriverWait wait, String name) {
        return wait.ignoring(StaleElementReferenceException.class)
                .until(b -> b.findElement(By.cssSelector("#node-fields dd[data-field='" + name + "']")).getText());
    }

    private void decode(String input, String format) {
        new Select(browser.findElement(By.id("decode-format"))).selectByValue(format);
        browser.findElement(By.id("decode-input")).clear();
        browser.findElement(By.id("decode-input")).sendKeys(input);
        browser.findElement(By.id("decode-button")).click();
    }

    private String field(String name) {
        return browser.findElement(By.cssSelector("#decode-result dd[data-field='" + name + "']")).getText();
    }

    private static long issue(String base) throws Exception {
        Matcher id = Pattern.compile("\"id\":(\\d+)").matcher(get(base, "/vesta/genid"));
        assertThat(id.find()).isTrue();
        return Long.parseLong(id.group(1));
    }

    private static String get(String base, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }
}
