// The Java side: takes the same lock as node.ts, with the same config file. Compile and run with
// Redisson on the class path, e.g. `jbang --deps org.redisson:redisson:3.52.0 SharedLock.java`.
import java.io.File;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

public class SharedLock {
    public static void main(String[] args) throws Exception {
        RedissonClient client = Redisson.create(Config.fromYAML(new File("redisson.yaml")));
        RLock lock = client.getLock("inventory:sku-42");
        lock.lock(); // watchdog lease (lockWatchdogTimeout), as node.ts's lock()
        try {
            System.out.println("Java holds inventory:sku-42 for 5 s; node.ts waits meanwhile");
            TimeUnit.SECONDS.sleep(5);
        } finally {
            lock.unlock(); // publishes the unlock message that wakes the Node waiter at once
        }
        client.shutdown();
    }
}
