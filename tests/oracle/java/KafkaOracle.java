/*
 * Apache Kafka's own client classes as a test oracle for planner.assignors and
 * planner.partitioners.
 *
 * One long-lived JVM answers line-delimited JSON requests: each line on stdin is one
 * request, each answer is one line on stdout. Requests name an "op":
 *
 *   assign      {"strategy": "range" | "roundrobin" | "sticky" | "cooperative-sticky",
 *                "topics": {"t": partitionCount, ...},
 *                "members": [{"id": memberId, "topics": [...],
 *                             "owned": [[topic, partition], ...],   (absent: a new member)
 *                             "generation": int,                   (default 1 with "owned")
 *                             "instance": groupInstanceId}, ...]}  (absent: dynamic)
 *               -> {"ok": true, "assignment": {memberId: [[topic, partition], ...]},
 *                   "general": bool (sticky strategies: Kafka took its general path)}
 *   murmur2     {"keys": [base64, ...], "partitions": [n, ...]}
 *               -> {"ok": true, "hashes": [Utils.murmur2(key), ...],
 *                   "partitions": [[BuiltInPartitioner.partitionForKey(key, n) per n], ...]}
 *   hash_order  {"strings": [...]}  -> the iteration order of a HashMap<String, ...> filled
 *               in that order; {"partitions": [[op, topic, partition], ...]} with op "add" or
 *               "remove" -> the iteration order of a HashSet<TopicPartition> after those ops;
 *               {"ints": [[op, n], ...], "capacity": c} with op "put", "compute"
 *               (computeIfAbsent) or "remove" -> the order of a HashMap<Integer, ...>(c)
 *   bench       {"strategy": ..., "partitionCounts": [...], "scenario": "fresh" | "grow",
 *                "warmup": n, "repeat": n}
 *               -> {"ok": true, "seconds": best time of the grid, "assignments": n}
 *               The grid of benchmarks/assignors_bench.py: one topic t of P partitions and
 *               every group size C = 1..P; "fresh" groups own nothing, "grow" groups are
 *               a settled group of C members (Kafka's own assignment) joined by one more.
 *   server_assign, server_topics, server_bench: the broker-side assignors
 *               (BrokerAssignors.java).
 *   streams_assign: the broker's Kafka Streams task assignor (StreamsAssignor.java).
 *   rack_assign: the client assignors with client.rack and replica racks (RackAssignors.java).
 *   streams_classic_assign: Kafka Streams' leader on the classic protocol
 *               (StreamsClassicAssignor.java).
 *
 * A request Kafka rejects answers {"ok": false, "error": "..."}.
 *
 * The group is built as Kafka's own consumer group leader builds it
 * (ConsumerCoordinator.onLeaderElected): the members' Subscriptions go into a HashMap in the
 * order given (the JoinGroup response's order), and the assignor's public
 * assign(Cluster, GroupSubscription) runs on cluster metadata holding the topics. Previous
 * ownership reaches each strategy the way the Java client sends it: the cooperative
 * protocol's ownedPartitions and generation in the Subscription; for the eager "sticky" the
 * user data that each member's own StickyAssignor serialises after onAssignment.
 *
 * Written for the planner's tests; it calls Kafka's public classes and copies none of their code.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

public final class KafkaOracle {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Node BROKER = new Node(0, "localhost", 9092);
    private static final String GROUP = "oracle-group";
    private static final int DEFAULT_GENERATION = 1;

    private KafkaOracle() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream protocol = new PrintStream(
                new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        // Kafka logs through Log4j, whose default console appender writes to System.out: send
        // that to stderr so nothing but answers ever reaches the protocol stream.
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            ObjectNode reply;
            try {
                reply = answer(JSON.readTree(line));
            } catch (Exception | AssertionError e) {
                reply = JSON.createObjectNode();
                reply.put("ok", false);
                reply.put("error", e.getClass().getName() + ": " + e.getMessage());
            }
            protocol.println(JSON.writeValueAsString(reply));
            protocol.flush();
        }
    }

    private static ObjectNode answer(JsonNode request) {
        String op = request.path("op").asText();
        switch (op) {
            case "assign":
                return assign(request);
            case "murmur2":
                return murmur2(request);
            case "hash_order":
                return hashOrder(request);
            case "bench":
                return bench(request);
            case "server_assign":
                return BrokerAssignors.assign(request);
            case "server_bench":
                return BrokerAssignors.bench(request);
            case "server_topics":
                return BrokerAssignors.topics(request);
            case "streams_assign":
                return StreamsAssignor.assign(request);
            case "rack_assign":
                return RackAssignors.assign(request);
            case "streams_classic_assign":
                return StreamsClassicAssignor.assign(request);
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    // ---------------------------------------------------------------------------------
    // Assignors

    static ConsumerPartitionAssignor leader(String strategy) {
        switch (strategy) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "sticky":
                return new StickyAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new IllegalArgumentException("unknown strategy " + strategy);
        }
    }

    private static Cluster cluster(JsonNode topics) {
        List<PartitionInfo> partitions = new ArrayList<>();
        Node[] replicas = {BROKER};
        topics.fields().forEachRemaining(entry -> {
            for (int p = 0; p < entry.getValue().asInt(); p++) {
                partitions.add(new PartitionInfo(entry.getKey(), p, BROKER, replicas, replicas));
            }
        });
        return new Cluster("oracle", List.of(BROKER), partitions, Collections.emptySet(), Collections.emptySet());
    }

    private static List<TopicPartition> partitions(JsonNode pairs) {
        List<TopicPartition> result = new ArrayList<>();
        for (JsonNode pair : pairs) {
            result.add(new TopicPartition(pair.get(0).asText(), pair.get(1).asInt()));
        }
        return result;
    }

    private static List<String> strings(JsonNode array) {
        List<String> result = new ArrayList<>();
        for (JsonNode item : array) {
            result.add(item.asText());
        }
        return result;
    }

    /** One member's Subscription as its own consumer would send it in JoinGroup. */
    private static Subscription subscription(String strategy, JsonNode member) {
        String memberId = member.get("id").asText();
        List<String> topics = strings(member.get("topics"));
        boolean wasMember = member.has("owned");
        List<TopicPartition> owned = wasMember ? partitions(member.get("owned")) : List.of();
        // A consumer that has not joined yet sends no generation (-1, Kafka's "no generation").
        int generation = wasMember ? member.path("generation").asInt(DEFAULT_GENERATION) : -1;
        Subscription subscription;
        if (strategy.equals("sticky")) {
            // Eager: the member revoked everything before joining, so ownedPartitions is empty;
            // what it owned travels in the user data its StickyAssignor writes.
            ByteBuffer userData = null;
            if (wasMember) {
                StickyAssignor own = new StickyAssignor();
                own.onAssignment(new Assignment(owned),
                        new ConsumerGroupMetadata(GROUP, generation, memberId, Optional.empty()));
                userData = own.subscriptionUserData(new HashSet<>(topics));
            }
            subscription = new Subscription(topics, userData, List.of(), generation, Optional.empty());
        } else {
            subscription = new Subscription(topics, null, owned, generation, Optional.empty());
        }
        if (member.hasNonNull("instance")) {
            subscription.setGroupInstanceId(Optional.of(member.get("instance").asText()));
        }
        return subscription;
    }

    private static Map<String, Subscription> group(String strategy, JsonNode members) {
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (JsonNode member : members) {
            subscriptions.put(member.get("id").asText(), subscription(strategy, member));
        }
        return subscriptions;
    }

    private static ObjectNode assign(JsonNode request) {
        String strategy = request.get("strategy").asText();
        Cluster cluster = cluster(request.get("topics"));
        Map<String, Subscription> subscriptions = group(strategy, request.get("members"));
        ConsumerPartitionAssignor leader = leader(strategy);
        return assignmentReply(leader, leader.assign(cluster, new GroupSubscription(subscriptions)));
    }

    /** The reply to an assignment request: each member's partitions, and for the sticky
     *  assignors whether they took the general path (also RackAssignors.java's). */
    static ObjectNode assignmentReply(ConsumerPartitionAssignor leader, GroupAssignment result) {
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        ObjectNode assignment = reply.putObject("assignment");
        for (Map.Entry<String, Assignment> entry : result.groupAssignment().entrySet()) {
            ArrayNode list = assignment.putArray(entry.getKey());
            for (TopicPartition tp : entry.getValue().partitions()) {
                list.addArray().add(tp.topic()).add(tp.partition());
            }
        }
        if (leader instanceof AbstractStickyAssignor) {
            // The general path leaves no precomputed ownership transfers (null).
            reply.put("general", ((AbstractStickyAssignor) leader).partitionsTransferringOwnership() == null);
        }
        return reply;
    }

    // ---------------------------------------------------------------------------------
    // murmur2 and the producer's keyed partition choice

    private static ObjectNode murmur2(JsonNode request) {
        List<Integer> counts = new ArrayList<>();
        for (JsonNode n : request.get("partitions")) {
            counts.add(n.asInt());
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        ArrayNode hashes = reply.putArray("hashes");
        ArrayNode chosen = reply.putArray("partitions");
        Base64.Decoder decoder = Base64.getDecoder();
        for (JsonNode encoded : request.get("keys")) {
            byte[] key = decoder.decode(encoded.asText());
            hashes.add(Utils.murmur2(key));
            ArrayNode row = chosen.addArray();
            for (int n : counts) {
                // What KafkaProducer.partition() does for a keyed record without a custom partitioner.
                row.add(BuiltInPartitioner.partitionForKey(key, n));
            }
        }
        return reply;
    }

    // ---------------------------------------------------------------------------------
    // Java's hash iteration orders, which the sticky assignors walk in places

    private static ObjectNode hashOrder(JsonNode request) {
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        ArrayNode order = reply.putArray("order");
        if (request.has("strings")) {
            Map<String, Integer> map = new HashMap<>();
            for (JsonNode item : request.get("strings")) {
                map.put(item.asText(), map.size());
            }
            map.keySet().forEach(order::add);
        } else if (request.has("ints")) {
            Map<Integer, Integer> map = new HashMap<>(request.get("capacity").asInt());
            for (JsonNode step : request.get("ints")) {
                int key = step.get(1).asInt();
                switch (step.get(0).asText()) {
                    case "put": map.put(key, key); break;
                    case "compute": map.computeIfAbsent(key, k -> k); break;
                    default: map.remove(key);
                }
            }
            map.keySet().forEach(order::add);
        } else {
            Set<TopicPartition> set = new HashSet<>();
            for (JsonNode step : request.get("partitions")) {
                TopicPartition tp = new TopicPartition(step.get(1).asText(), step.get(2).asInt());
                if (step.get(0).asText().equals("add")) {
                    set.add(tp);
                } else {
                    set.remove(tp);
                }
            }
            set.forEach(tp -> order.addArray().add(tp.topic()).add(tp.partition()));
        }
        return reply;
    }

    // ---------------------------------------------------------------------------------
    // The benchmark grid of benchmarks/assignors_bench.py, timed inside this JVM

    private static ObjectNode bench(JsonNode request) {
        String strategy = request.get("strategy").asText();
        boolean grow = request.path("scenario").asText("fresh").equals("grow");
        List<Cluster> clusters = new ArrayList<>();
        List<GroupSubscription> groups = new ArrayList<>();
        for (JsonNode count : request.get("partitionCounts")) {
            int partitions = count.asInt();
            ObjectNode topics = JSON.createObjectNode();
            topics.put("t", partitions);
            Cluster cluster = cluster(topics);
            for (int members = 1; members <= partitions; members++) {
                clusters.add(cluster);
                groups.add(grow ? grownGroup(strategy, cluster, members) : freshGroup(members));
            }
        }
        int warmup = request.path("warmup").asInt(3);
        int repeat = request.path("repeat").asInt(5);
        long best = Long.MAX_VALUE;
        for (int round = 0; round < warmup + repeat; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < groups.size(); i++) {
                // A fresh assignor per group, so no state carries over from one group to the next.
                leader(strategy).assign(clusters.get(i), groups.get(i));
            }
            long elapsed = System.nanoTime() - start;
            if (round >= warmup) {
                best = Math.min(best, elapsed);
            }
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        reply.put("seconds", best / 1e9);
        reply.put("assignments", groups.size());
        return reply;
    }

    private static String memberId(int index) {
        return "consumer-" + index;
    }

    /** Members consumer-0 .. consumer-(n-1), all subscribed to topic t, owning nothing. */
    private static GroupSubscription freshGroup(int members) {
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (int m = 0; m < members; m++) {
            subscriptions.put(memberId(m), new Subscription(List.of("t")));
        }
        return new GroupSubscription(subscriptions);
    }

    /** A fresh group of n members as Kafka assigned it, joined by one more member. */
    private static GroupSubscription grownGroup(String strategy, Cluster cluster, int members) {
        String settledWith = strategy.equals("cooperative-sticky") ? strategy : "sticky";
        Map<String, Assignment> settled =
                leader(settledWith).assign(cluster, freshGroup(members)).groupAssignment();
        ArrayNode group = JSON.createArrayNode();
        for (int m = 0; m <= members; m++) {
            ObjectNode member = group.addObject();
            member.put("id", memberId(m));
            member.putArray("topics").add("t");
            if (m < members) {
                ArrayNode owned = member.putArray("owned");
                for (TopicPartition tp : settled.get(memberId(m)).partitions()) {
                    owned.addArray().add(tp.topic()).add(tp.partition());
                }
            }
        }
        return new GroupSubscription(group(strategy, group));
    }
}
