import io.streamthoughts.azkarra.api.AzkarraContext;
import io.streamthoughts.azkarra.api.AzkarraContextListener;
import io.streamthoughts.azkarra.api.Executed;
import io.streamthoughts.azkarra.api.config.Conf;
import io.streamthoughts.azkarra.api.config.Configurable;
import io.streamthoughts.azkarra.api.server.EmbeddedHttpServer;
import io.streamthoughts.azkarra.api.streams.TopologyProvider;
import io.streamthoughts.azkarra.http.ServerConfig;
import io.streamthoughts.azkarra.http.UndertowEmbeddedServerProvider;
import io.streamthoughts.azkarra.runtime.context.DefaultAzkarraContext;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Map;

/**
 * The Azkarra side of the query benchmark (bench/queries/run.ts): one Azkarra 0.8.0 node whose topology keeps the
 * latest value of every key of the input topic in the (timestamped) key-value store `values`, as Sluice's
 * bench/queries/topology.ts does, and answers Azkarra's REST API on 127.0.0.1:port. azkarra-streams'
 * AzkarraApplication is not on Maven Central, so this does its bootstrap: a DefaultAzkarraContext and an Undertow
 * server started when the context starts. Runs until killed; SIGTERM closes the context through its shutdown hook.
 *
 * Usage: java QueryBench bootstrap-servers application-id input-topic port state-dir
 */
public class QueryBench {

    static final String HOST = "127.0.0.1";
    static final String STORE = "values";

    public static void main(final String[] args) {
        if (args.length != 5) {
            System.err.println("usage: QueryBench bootstrap-servers application-id input-topic port state-dir");
            System.exit(2);
        }
        final String bootstrapServers = args[0];
        final String applicationId = args[1];
        final String input = args[2];
        final int port = Integer.parseInt(args[3]);
        final String stateDir = args[4];

        final AzkarraContext context = DefaultAzkarraContext.create(Conf.of("streams", Conf.of(Map.of(
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            StreamsConfig.STATE_DIR_CONFIG, stateDir,
            // Sluice's nodes commit every second too.
            StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000
        ))));
        context.addListener(new HttpServerLifecycle(
            new UndertowEmbeddedServerProvider().get(context),
            ServerConfig.newBuilder().setListener(HOST).setPort(port).build()
        ));
        context.setRegisterShutdownHook(true);
        context.start();
        // Added once the context runs, so that its configuration holds the application.server the listener adds
        // (a topology added before start() is configured before the listeners run). The explicit application.id
        // replaces the one Azkarra derives from the topology's name and version.
        context.addTopology(ValuesTopology.class, Executed.as("query-bench").withConfig(Conf.of(
            ValuesTopology.INPUT_CONFIG, input,
            "streams", Conf.of(StreamsConfig.APPLICATION_ID_CONFIG, applicationId)
        )));
    }

    /** What AzkarraApplication's EmbeddedServerLifecycle does: serve HTTP, and advertise it for store queries. */
    static final class HttpServerLifecycle implements AzkarraContextListener {

        private final EmbeddedHttpServer server;
        private final Conf conf;

        HttpServerLifecycle(final EmbeddedHttpServer server, final Conf conf) {
            this.server = server;
            this.conf = conf;
        }

        @Override
        public void onContextStart(final AzkarraContext context) {
            server.configure(conf);
            server.start();
            final String endpoint = server.info().getHost() + ":" + server.info().getPort();
            context.addConfiguration(Conf.of("streams", Conf.of(StreamsConfig.APPLICATION_SERVER_CONFIG, endpoint)));
        }

        @Override
        public void onContextStop(final AzkarraContext context) {
            server.stop();
        }
    }

    /** Every record of the input topic (string key and value) goes to the timestamped key-value store `values`. */
    public static final class ValuesTopology implements TopologyProvider, Configurable {

        static final String INPUT_CONFIG = "topology.topic.input";

        private String input;

        /** Azkarra instantiates the topology itself (with no arguments), then passes it the topology's config. */
        @Override
        public void configure(final Conf configuration) {
            input = configuration.getString(INPUT_CONFIG);
        }

        @Override
        public String version() {
            return "1.0.0";
        }

        @Override
        public Topology topology() {
            final StreamsBuilder builder = new StreamsBuilder();
            builder.table(
                input,
                Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(STORE)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(Serdes.String())
            );
            return builder.build();
        }
    }
}
