package dev.redissonts;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson interop peer, driven by line-delimited JSON over stdin/stdout.
 *
 * <pre>
 * start-up: {"event":"ready"}
 * {"id":1,"op":"connect","address":"redis://127.0.0.1:6379","lockWatchdogTimeout":30000}
 *   (or "configFile":"/path/redisson.yaml": the whole Config from that file, Config.fromYAML)
 *   -> {"id":1,"ok":true,"result":{"clientId":"..","version":".."},"ts":..}
 * {"id":2,"op":"call","primitive":"lock","name":"k","method":"tryLock","args":[100,10000],"thread":"t1"}
 *   -> {"id":2,"ok":true,"result":true,"ts":..,"startTs":..,"threadId":..}
 *   -> {"id":2,"ok":false,"error":{"type":"..","class":"..","message":".."},"ts":..,"threadId":..}
 * {"id":3,"op":"threadId","thread":"t1"}  -> result: java thread id
 * {"id":4,"op":"ping"}                     -> result: "pong"
 * {"id":6,"op":"latchWaiting","thread":"t1"} -> result: true when that thread is parked in a Semaphore acquire
 *   (a blocking lock() waiting on its lock entry's latch for a message or its TTL)
 * {"id":5,"op":"shutdown"}                 -> reply, then exit 0 (EOF on stdin: same)
 * </pre>
 *
 * The benchmark's in-JVM ops (benchmarks/scenarios/javaInJvm.ts) time inside the JVM with System.nanoTime:
 * "bench" (uncontended pairs), "benchRoundTrip", "benchContend" and "benchClock" run inline on the reader
 * thread; "benchHold" / "benchWait" / "benchRelease" (the handoff roles) run on the named "thread" like "call".
 * Absolute nanoTime values are sent as strings (a JSON number loses digits past 2^53).
 *
 * "call" and "threadId" run on a long-lived single thread per "thread" name,
 * asynchronously to the stdin reader, so replies may come out of order.
 * connect / ping / shutdown run inline on the reader thread.
 */
public final class Peer {
    private final PrintStream out;
    private final Handlers handlers = new Handlers();
    private final Map<String, ExecutorService> threads = new ConcurrentHashMap<>();
    private volatile RedissonClient client;

    private Peer(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] argv) throws Exception {
        // Keep the protocol channel private: anything else printing to
        // System.out (libraries, stray debug) goes to stderr instead.
        PrintStream protocol = new PrintStream(
                new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        new Peer(protocol).run(System.in);
    }

    private void run(InputStream in) {
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("event", "ready");
        emit(ready);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank()) {
                    handleLine(line);
                }
            }
        } catch (Throwable t) {
            System.err.println("peer: stdin failed: " + t);
        }
        exit(null);
    }

    // ------------------------------------------------------------- dispatch

    private void handleLine(String line) {
        Object id = null;
        try {
            Object parsed = Json.parse(line);
            if (!(parsed instanceof Map)) {
                throw new IllegalArgumentException("request must be a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> req = (Map<String, Object>) parsed;
            id = req.get("id");
            String op = str(req, "op");
            switch (op) {
                case "connect":
                    reply(id, connect(req), null);
                    break;
                case "call":
                    call(id, req);
                    break;
                case "threadId":
                    threadId(id, str(req, "thread"));
                    break;
                case "ping":
                    reply(id, "pong", null);
                    break;
                case "latchWaiting":
                    reply(id, latchWaiting(str(req, "thread")), null);
                    break;
                case "bench":
                    reply(id, bench(req), null);
                    break;
                case "benchClock":
                    reply(id, Long.toString(System.nanoTime()), null);
                    break;
                case "benchRoundTrip":
                    reply(id, benchRoundTrip(req), null);
                    break;
                case "benchContend":
                    reply(id, benchContend(req), null);
                    break;
                case "benchHold":
                case "benchWait":
                case "benchRelease":
                    benchHandoff(id, op, req);
                    break;
                case "shutdown":
                    exit(id);
                    break;
                default:
                    throw new IllegalArgumentException("unknown op '" + op + "'");
            }
        } catch (Throwable t) {
            fail(id, t, null);
        }
    }

    /**
     * The benchmark's in-JVM row (benchmarks/scenarios/javaInJvm.ts): n uncontended lock+unlock pairs on one
     * thread, each beside one round trip of Java's own (an EXISTS through RBucket), timed with nanoTime inside
     * the JVM, so the peer's stdin/stdout pipe is not in the numbers. Runs on the reader thread: nothing else
     * is asked of the peer meanwhile.
     */
    private Map<String, Object> bench(Map<String, Object> req) {
        int n = ((Number) req.get("n")).intValue();
        String name = str(req, "name");
        RLock lock = client.getLock(name);
        RBucket<Object> probe = client.getBucket(name + ":probe");
        for (int i = 0; i < 200; i++) {
            lock.lock();
            lock.unlock();
            probe.isExists();
        }
        List<Object> pairs = new ArrayList<>(n);
        List<Object> trips = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            probe.isExists();
            trips.add(System.nanoTime() - t);
            t = System.nanoTime();
            lock.lock();
            lock.unlock();
            pairs.add(System.nanoTime() - t);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("pairNanos", pairs);
        out.put("roundTripNanos", trips);
        return out;
    }

    /**
     * n round trips of Java's own (an EXISTS through RBucket, as in "bench"), each after idleMs of sleep (0: back
     * to back, after a short warm-up), in nanoseconds.
     */
    private List<Object> benchRoundTrip(Map<String, Object> req) throws InterruptedException {
        int n = ((Number) req.get("n")).intValue();
        long idleMs = ((Number) req.get("idleMs")).longValue();
        RBucket<Object> probe = connected().getBucket(str(req, "name"));
        if (idleMs == 0) {
            for (int i = 0; i < 100; i++) {
                probe.isExists();
            }
        }
        List<Object> trips = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (idleMs > 0) {
                Thread.sleep(idleMs);
            }
            long t = System.nanoTime();
            probe.isExists();
            trips.add(System.nanoTime() - t);
        }
        return trips;
    }

    /**
     * Contention without the pipe (the "contend" loop of benchmarks/worker.ts, in Java): "threads" owners, each a
     * Java thread with its own RLock handle on this JVM's one client, start at startAtNanos (System.nanoTime,
     * i.e. CLOCK_MONOTONIC on Linux, the clock the driving Node process reads with process.hrtime) and loop
     * until durationMs after it: lock(), GET counter, SET counter value+1 (a plain string, StringCodec), unlock().
     * An op blocked at the deadline still completes ("late"); owners still blocked graceMs after the deadline
     * are left ("stuck") and, once they get the lock, release it without touching the counter. Runs on the
     * reader thread: the driver sends nothing else meanwhile.
     */
    private Map<String, Object> benchContend(Map<String, Object> req) throws InterruptedException {
        long received = System.nanoTime();
        RedissonClient c = connected();
        String name = str(req, "name");
        int threads = ((Number) req.get("threads")).intValue();
        long startAt = Long.parseLong(str(req, "startAtNanos"));
        long end = startAt + ((Number) req.get("durationMs")).longValue() * 1_000_000L;
        long giveUpAt = end + ((Number) req.get("graceMs")).longValue() * 1_000_000L;
        RBucket<String> counter = c.getBucket(str(req, "counter"), StringCodec.INSTANCE);
        AtomicBoolean abandoned = new AtomicBoolean();
        List<ContendOwner> owners = new ArrayList<>(threads);
        List<Thread> running = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            ContendOwner owner = new ContendOwner(c.getLock(name), counter, startAt, end, abandoned);
            Thread t = new Thread(owner, "contend-" + i);
            t.setDaemon(true);
            owners.add(owner);
            running.add(t);
        }
        running.forEach(Thread::start);
        for (Thread t : running) {
            long leftMs = (giveUpAt - System.nanoTime()) / 1_000_000L;
            if (leftMs > 0) {
                t.join(leftMs);
            }
        }
        abandoned.set(true);
        List<Object> ops = new ArrayList<>(threads);
        List<Object> waits = new ArrayList<>();
        List<Object> errors = new ArrayList<>();
        int late = 0;
        int stuck = 0;
        for (int i = 0; i < threads; i++) {
            ContendOwner owner = owners.get(i);
            if (running.get(i).isAlive()) {
                // Still blocked in lock(): its counts are read racily, its waits not at all.
                stuck++;
                ops.add(owner.ops);
                late += owner.late;
                continue;
            }
            ops.add(owner.ops);
            late += owner.late;
            waits.addAll(owner.waits);
            if (owner.error != null && errors.size() < 3) {
                errors.add(owner.error);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ops", ops);
        out.put("late", late);
        out.put("stuck", stuck);
        out.put("waitNanos", waits);
        out.put("errors", errors);
        out.put("lateStartNanos", Math.max(0L, received - startAt));
        return out;
    }

    /** One owner of benchContend, on a thread of its own. */
    private static final class ContendOwner implements Runnable {
        private final RLock lock;
        private final RBucket<String> counter;
        private final long startAt;
        private final long end;
        private final AtomicBoolean abandoned;
        final List<Long> waits = new ArrayList<>();
        volatile int ops;
        volatile int late;
        volatile String error;

        ContendOwner(RLock lock, RBucket<String> counter, long startAt, long end, AtomicBoolean abandoned) {
            this.lock = lock;
            this.counter = counter;
            this.startAt = startAt;
            this.end = end;
            this.abandoned = abandoned;
        }

        @Override
        public void run() {
            for (long left = startAt - System.nanoTime(); left > 0; left = startAt - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            try {
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    lock.lock();
                    waits.add(System.nanoTime() - t0);
                    if (abandoned.get()) {
                        lock.unlock();
                        break;
                    }
                    try {
                        String value = counter.get();
                        counter.set(Long.toString((value == null ? 0L : Long.parseLong(value)) + 1));
                    } finally {
                        lock.unlock();
                    }
                    if (System.nanoTime() <= end) {
                        ops++;
                    } else {
                        late++;
                    }
                }
            } catch (Throwable t) {
                error = String.valueOf(unwrap(t));
            }
        }
    }

    /**
     * The handoff roles, each on the named thread (an RLock belongs to the thread that took it): "benchHold"
     * takes the lock; "benchWait" blocks in lock(), then replies with nanoTime as soon as lock() returned (and
     * unlocks); "benchRelease" replies with nanoTime taken just before its unlock().
     */
    private void benchHandoff(Object id, String op, Map<String, Object> req) {
        RedissonClient c = connected();
        String name = str(req, "name");
        executor(str(req, "thread")).execute(() -> {
            try {
                RLock lock = c.getLock(name);
                Object result = null;
                if (op.equals("benchHold")) {
                    lock.lock();
                } else if (op.equals("benchWait")) {
                    lock.lock();
                    long t = System.nanoTime();
                    lock.unlock();
                    result = Long.toString(t);
                } else {
                    long t = System.nanoTime();
                    lock.unlock();
                    result = Long.toString(t);
                }
                reply(id, result, null);
            } catch (Throwable t) {
                fail(id, t, null);
            }
        });
    }

    private RedissonClient connected() {
        RedissonClient c = client;
        if (c == null) {
            throw new IllegalStateException("not connected: send op 'connect' first");
        }
        return c;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> connect(Map<String, Object> req) throws java.io.IOException {
        if (client != null) {
            throw new IllegalStateException("already connected");
        }
        Object configFile = req.get("configFile");
        // A Redisson YAML file, as a Spring service's starter reads it (redisson-ts-nestjs shares one with us).
        Config config = configFile instanceof String ? Config.fromYAML(new java.io.File((String) configFile)) : new Config();
        Object cluster = req.get("cluster");
        Object sentinel = req.get("sentinel");
        if (configFile instanceof String) {
            // every setting comes from the file
        } else if (cluster instanceof Map) {
            configureCluster(config, (Map<String, Object>) cluster);
        } else if (sentinel instanceof Map) {
            Map<String, Object> s = (Map<String, Object>) sentinel;
            var servers = config.useSentinelServers().setMasterName(str(s, "masterName"));
            for (Object a : (List<Object>) s.get("sentinelAddresses")) {
                servers.addSentinelAddress(String.valueOf(a));
            }
            // The harness's sentinels announce loopback addresses; Redisson's default check of the sentinel
            // list is kept.
        } else {
            config.useSingleServer().setAddress(str(req, "address"));
        }
        Object wd = req.get("lockWatchdogTimeout");
        if (wd instanceof Number) {
            config.setLockWatchdogTimeout(((Number) wd).longValue());
        }
        client = Redisson.create(config);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("clientId", client.getId());
        result.put("version", redissonVersion());
        result.put("lockWatchdogTimeout", config.getLockWatchdogTimeout());
        result.put("primitives", List.copyOf(handlers.available().keySet()));
        return result;
    }

    private void call(Object id, Map<String, Object> req) {
        RedissonClient c = client;
        if (c == null) {
            throw new IllegalStateException("not connected: send op 'connect' first");
        }
        String primitive = str(req, "primitive");
        String name = str(req, "name");
        String method = str(req, "method");
        Object rawArgs = req.get("args");
        if (rawArgs != null && !(rawArgs instanceof List)) {
            throw new IllegalArgumentException("'args' must be an array");
        }
        @SuppressWarnings("unchecked")
        Args args = new Args((List<Object>) rawArgs);
        PrimitiveHandler handler = handlers.get(primitive);
        executor(str(req, "thread")).execute(() -> {
            long tid = Thread.currentThread().getId();
            long startTs = System.currentTimeMillis();
            try {
                Object result = handler.call(c, name, method, args);
                Map<String, Object> extra = new LinkedHashMap<>();
                extra.put("startTs", startTs);
                extra.put("threadId", tid);
                reply(id, result, extra);
            } catch (Throwable t) {
                Map<String, Object> extra = new LinkedHashMap<>();
                extra.put("startTs", startTs);
                extra.put("threadId", tid);
                fail(id, t, extra);
            }
        });
    }

    private void threadId(Object id, String thread) {
        executor(thread).execute(() -> {
            long tid = Thread.currentThread().getId();
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("threadId", tid);
            reply(id, tid, extra);
        });
    }

    /**
     * Whether the named thread is parked inside a Semaphore acquire: a blocking lock() waiting on its lock entry's
     * latch. Redisson's read-unlock message (`1`) releases only as many permits as there are threads queued on
     * that latch at that moment, so a test that publishes it must wait until the waiter is queued, not only until
     * its retry has returned a TTL.
     */
    private static boolean latchWaiting(String thread) {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (!t.getName().equals(thread)) continue;
            Thread.State state = t.getState();
            if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) return false;
            for (StackTraceElement frame : e.getValue()) {
                if (frame.getClassName().equals("java.util.concurrent.Semaphore")) return true;
            }
            return false;
        }
        return false;
    }

    private ExecutorService executor(String thread) {
        return threads.computeIfAbsent(thread, n -> Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, n);
            t.setDaemon(true);
            return t;
        }));
    }

    private void exit(Object id) {
        // Never outlive a stuck shutdown (e.g. a thread blocked in lock()).
        Thread halter = new Thread(() -> {
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException ignored) {
                return;
            }
            System.err.println("peer: shutdown took too long, halting");
            Runtime.getRuntime().halt(0);
        }, "peer-halter");
        halter.setDaemon(true);
        halter.start();
        RedissonClient c = client;
        if (c != null) {
            try {
                c.shutdown();
            } catch (Throwable t) {
                System.err.println("peer: redisson shutdown failed: " + t);
            }
        }
        if (id != null) {
            reply(id, null, null);
        }
        out.flush();
        System.exit(0);
    }

    // --------------------------------------------------------------- output

    private void reply(Object id, Object result, Map<String, Object> extra) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ok", true);
        m.put("result", result);
        m.put("ts", System.currentTimeMillis());
        if (extra != null) {
            m.putAll(extra);
        }
        emit(m);
    }

    private void fail(Object id, Throwable t, Map<String, Object> extra) {
        Throwable e = unwrap(t);
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("type", e.getClass().getSimpleName());
        err.put("class", e.getClass().getName());
        err.put("message", e.getMessage());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ok", false);
        m.put("error", err);
        m.put("ts", System.currentTimeMillis());
        if (extra != null) {
            m.putAll(extra);
        }
        emit(m);
    }

    /** One line per message, whole lines only, flushed. */
    private void emit(Map<String, Object> message) {
        String line = Json.stringify(message);
        synchronized (out) {
            out.print(line);
            out.print('\n');
            out.flush();
        }
    }

    // -------------------------------------------------------------- helpers

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException
                || t instanceof InvocationTargetException || t instanceof UndeclaredThrowableException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Cluster mode: node addresses, and shardedSubscriptionMode (AUTO / ON / OFF) where the version has it
     * (3.29.0+; set through reflection so the one source compiles against every pinned version).
     */
    @SuppressWarnings("unchecked")
    private static void configureCluster(Config config, Map<String, Object> c) {
        var servers = config.useClusterServers();
        for (Object a : (List<Object>) c.get("nodeAddresses")) {
            servers.addNodeAddress(String.valueOf(a));
        }
        Object mode = c.get("shardedSubscriptionMode");
        if (mode == null) {
            return;
        }
        try {
            Class<?> modeClass = Class.forName("org.redisson.config.ShardedSubscriptionMode");
            Object value = modeClass.getMethod("valueOf", String.class).invoke(null, String.valueOf(mode));
            servers.getClass().getMethod("setShardedSubscriptionMode", modeClass).invoke(servers, value);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            throw new IllegalArgumentException("shardedSubscriptionMode is not in Redisson " + redissonVersion(), e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String str(Map<String, Object> req, String key) {
        Object v = req.get(key);
        if (!(v instanceof String)) {
            throw new IllegalArgumentException("'" + key + "' must be a string");
        }
        return (String) v;
    }

    private static String redissonVersion() {
        try (InputStream in = Redisson.class.getResourceAsStream(
                "/META-INF/maven/org.redisson/redisson/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null) {
                    return v;
                }
            }
        } catch (Exception ignored) {
            // fall back to the manifest
        }
        Package pkg = Redisson.class.getPackage();
        return pkg == null ? null : pkg.getImplementationVersion();
    }
}
