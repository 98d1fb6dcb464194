package org.apache.kafka.streams.examples.wordcount;

import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * Kafka Streams' WordCountDemo as its main runs it (its configuration defaults over the properties file given, its
 * topology, streams.close() on SIGTERM, which does not leave the group), plus a report on stdout for the Sluice
 * benchmarks and tests (bench/support/streams-report.ts): one JSON object a line for each state change, restore
 * progress every second until the first RUNNING, and at the first RUNNING the records restored and the restore phase.
 * It lives in the demo's package to call the demo's own package-private getStreamsConfig and createWordCountStream:
 * the topology and the defaults are WordCountDemo's, not a copy of them.
 */
public final class ReportingWordCountDemo {
    private static final long PROGRESS_INTERVAL_MS = 1000;

    private static final AtomicLong restored = new AtomicLong();
    /** Records each started partition has to restore (end offset - start offset). */
    private static final ConcurrentHashMap<TopicPartition, Long> toRestore = new ConcurrentHashMap<>();
    private static final AtomicLong firstRestoreStart = new AtomicLong(Long.MAX_VALUE);
    private static final AtomicLong lastRestoreEnd = new AtomicLong(Long.MIN_VALUE);

    private ReportingWordCountDemo() {
    }

    public static void main(final String[] args) throws Exception {
        final Properties props = WordCountDemo.getStreamsConfig(args);
        final StreamsBuilder builder = new StreamsBuilder();
        WordCountDemo.createWordCountStream(builder);
        final KafkaStreams streams = new KafkaStreams(builder.build(), props);

        final AtomicBoolean running = new AtomicBoolean(false);
        streams.setStateListener((next, previous) -> {
            if (next == KafkaStreams.State.RUNNING && running.compareAndSet(false, true)) {
                final long phase = firstRestoreStart.get() == Long.MAX_VALUE ? 0 : lastRestoreEnd.get() - firstRestoreStart.get();
                report("{\"report\":\"restored\",\"records\":" + restored.get() + ",\"phaseMs\":" + phase + ",\"at\":" + now() + "}");
            }
            report("{\"report\":\"state\",\"state\":\"" + next + "\",\"previous\":\"" + previous + "\",\"at\":" + now() + "}");
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(final TopicPartition partition, final String store, final long start, final long end) {
                firstRestoreStart.accumulateAndGet(now(), Math::min);
                toRestore.put(partition, end - start);
            }

            @Override
            public void onBatchRestored(final TopicPartition partition, final String store, final long batchEnd, final long records) {
                restored.addAndGet(records);
            }

            @Override
            public void onRestoreEnd(final TopicPartition partition, final String store, final long total) {
                lastRestoreEnd.accumulateAndGet(now(), Math::max);
            }
        });

        final ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(runnable -> {
            final Thread thread = new Thread(runnable, "restore-progress");
            thread.setDaemon(true);
            return thread;
        });
        progress.scheduleAtFixedRate(() -> {
            if (running.get()) {
                progress.shutdown();
                return;
            }
            final long done = restored.get();
            final long remaining = toRestore.values().stream().mapToLong(Long::longValue).sum() - done;
            report("{\"report\":\"progress\",\"state\":\"" + streams.state() + "\",\"restored\":" + done + ",\"remaining\":" + remaining
                + ",\"at\":" + now() + "}");
        }, PROGRESS_INTERVAL_MS, PROGRESS_INTERVAL_MS, TimeUnit.MILLISECONDS);

        // As WordCountDemo.main: close on SIGTERM, exit when closed.
        final CountDownLatch latch = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread("streams-wordcount-shutdown-hook") {
            @Override
            public void run() {
                streams.close();
                latch.countDown();
            }
        });
        try {
            streams.start();
            latch.await();
        } catch (final Throwable e) {
            System.exit(1);
        }
        System.exit(0);
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    private static synchronized void report(final String json) {
        System.out.println(json);
        System.out.flush();
    }
}
