package kgmemory.neo4jlocal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Runs Neo4j 5.26 Community in-process: Bolt + HTTP (with Neo4j Browser at /browser/) + APOC core.
 *
 * <p>Usage: {@code java -cp 'target/classes:target/lib/*' kgmemory.neo4jlocal.Launcher [options]}
 *
 * <pre>
 *   --data DIR        Neo4j home (databases, transaction logs, logs). Env KG_NEO4J_HOME. Default ./neo4j-data
 *   --plugins DIR     directory holding the APOC jars. Env KG_NEO4J_PLUGINS. Default: target/plugins next to the jar
 *   --host HOST       listen address for Bolt and HTTP. Env KG_NEO4J_HOST. Default 127.0.0.1
 *   --bolt-port N     Env KG_NEO4J_BOLT_PORT. Default 7687
 *   --http-port N     Env KG_NEO4J_HTTP_PORT. Default 7474
 *   --pagecache SIZE  Env KG_NEO4J_PAGECACHE. Default 512m
 * </pre>
 *
 * <p>Auth: if NEO4J_PASSWORD is set (or NEO4J_AUTH=neo4j/PASSWORD), auth is enabled and the user
 * {@code neo4j} gets that password on every start. Otherwise (or with NEO4J_AUTH=none) auth is
 * disabled (local development only; the listeners bind to 127.0.0.1 by default).
 */
public final class Launcher {

    private static volatile boolean stopping;

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        String data = env.getOrDefault("KG_NEO4J_HOME", "neo4j-data");
        String plugins = env.get("KG_NEO4J_PLUGINS");
        String host = env.getOrDefault("KG_NEO4J_HOST", "127.0.0.1");
        int boltPort = Integer.parseInt(env.getOrDefault("KG_NEO4J_BOLT_PORT", "7687"));
        int httpPort = Integer.parseInt(env.getOrDefault("KG_NEO4J_HTTP_PORT", "7474"));
        String pagecache = env.getOrDefault("KG_NEO4J_PAGECACHE", "512m");

        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--data" -> data = need(args, ++i, a);
                case "--plugins" -> plugins = need(args, ++i, a);
                case "--host" -> host = need(args, ++i, a);
                case "--bolt-port" -> boltPort = Integer.parseInt(need(args, ++i, a));
                case "--http-port" -> httpPort = Integer.parseInt(need(args, ++i, a));
                case "--pagecache" -> pagecache = need(args, ++i, a);
                case "-h", "--help" -> {
                    System.out.println("options: --data DIR --plugins DIR --host HOST --bolt-port N --http-port N --pagecache SIZE");
                    return;
                }
                default -> die("unknown argument: " + a);
            }
        }

        Path home = Path.of(data).toAbsolutePath().normalize();
        Files.createDirectories(home);
        Path pluginDir = plugins != null ? Path.of(plugins).toAbsolutePath().normalize() : defaultPluginDir();
        String password = resolvePassword(env);
        boolean auth = password != null;

        log("neo4j home: " + home);
        log("plugins:    " + pluginDir + (Files.isDirectory(pluginDir) ? "" : " (missing: APOC will not be available)"));
        log("auth:       " + (auth ? "enabled (user neo4j, password from env)" : "DISABLED (set NEO4J_PASSWORD to enable)"));

        // Registered before build(): a SIGTERM during startup waits (up to 60 s) for build() to
        // finish and then shuts the stores down cleanly.
        AtomicReference<DatabaseManagementService> running = new AtomicReference<>();
        CountDownLatch built = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log("shutting down");
            stopping = true;
            try {
                built.await(60, TimeUnit.SECONDS);
                DatabaseManagementService d = running.get();
                if (d != null) {
                    d.shutdown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                stopped.countDown();
            }
        }, "neo4j-local-shutdown"));

        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setUserLogProvider(new Log4jLogProvider(System.out, Level.INFO))
                    .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    .setConfig(GraphDatabaseSettings.plugin_dir, pluginDir)
                    .setConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("apoc.*"))
                    .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pagecache))
                    .setConfig(GraphDatabaseSettings.default_listen_address, new SocketAddress(host))
                    .setConfig(GraphDatabaseSettings.default_advertised_address, new SocketAddress(host))
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(host, boltPort))
                    .setConfig(BoltConnector.advertised_address, new SocketAddress(host, boltPort))
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(HttpConnector.enabled, true)
                    .setConfig(HttpConnector.listen_address, new SocketAddress(host, httpPort))
                    .setConfig(HttpConnector.advertised_address, new SocketAddress(host, httpPort))
                    .setConfig(HttpsConnector.enabled, false)
                    .build();
            running.set(dbms);
        } finally {
            built.countDown();
        }

        if (auth) {
            setPassword(dbms, password);
        }

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        if (!db.isAvailable(120_000)) {
            log("warning: database " + db.databaseName() + " not available after 120 s");
        }
        if (stopping) {
            stopped.await();
            return;
        }
        log("ready: bolt://" + host + ":" + boltPort + "  browser: http://" + host + ":" + httpPort + "/browser/");
        stopped.await();
    }

    /** NEO4J_PASSWORD wins; else NEO4J_AUTH=neo4j/PASSWORD; NEO4J_AUTH=none or nothing means no auth. */
    static String resolvePassword(Map<String, String> env) {
        String pw = env.get("NEO4J_PASSWORD");
        if (pw != null && !pw.isEmpty()) {
            return pw;
        }
        String na = env.get("NEO4J_AUTH");
        if (na == null || na.isEmpty() || na.equalsIgnoreCase("none")) {
            return null;
        }
        int slash = na.indexOf('/');
        if (slash < 0 || !na.substring(0, slash).equals("neo4j")) {
            die("NEO4J_AUTH must be 'none' or 'neo4j/<password>'");
        }
        return na.substring(slash + 1);
    }

    /** Gives user neo4j the wanted password (idempotent; runs against the system database). */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        if (!system.isAvailable(120_000)) {
            die("system database not available after 120 s; cannot set the neo4j password");
        }
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
            log("password for user neo4j set from env");
        } catch (RuntimeException e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.contains("Old password and new password cannot be the same")) {
                system.executeTransactionally("ALTER USER neo4j SET PASSWORD CHANGE NOT REQUIRED");
                log("password for user neo4j unchanged");
            } else {
                die("could not set the neo4j password: " + msg);
            }
        }
    }

    /** target/plugins next to target/classes or target/neo4j-local-*.jar. */
    private static Path defaultPluginDir() {
        try {
            Path self = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return self.getParent().resolve("plugins");
        } catch (Exception e) {
            return Path.of("target", "plugins").toAbsolutePath();
        }
    }

    private static String need(String[] args, int i, String flag) {
        if (i >= args.length) {
            die(flag + " needs a value");
        }
        return args[i];
    }

    private static void log(String msg) {
        System.out.println("[neo4j-local] " + msg);
        System.out.flush();
    }

    private static void die(String msg) {
        System.err.println("[neo4j-local] error: " + msg);
        System.exit(2);
    }
}
