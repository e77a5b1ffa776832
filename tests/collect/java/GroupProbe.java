import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consumer groups for the admin collector's tests, seen from Kafka's own Java client.
 *
 * <pre>
 * members BOOTSTRAP GROUP ASSIGNOR_CLASS COUNT TOPIC[,TOPIC...]
 *     COUNT classic-protocol KafkaConsumers of GROUP, one thread each, with the given
 *     partition.assignment.strategy; prints "ready" once every member owns partitions,
 *     and leaves the group when its standard input closes.
 * describe BOOTSTRAP GROUP...
 *     One JSON object per group, as Kafka's Admin reports it: listGroups (type, protocol,
 *     state), then describeConsumerGroups or describeShareGroups (assignor, members and
 *     their assignments).
 * </pre>
 */
public final class GroupProbe {
    private GroupProbe() {}

    public static void main(String[] args) throws Exception {
        if (args.length >= 6 && args[0].equals("members")) {
            members(args[1], args[2], args[3], Integer.parseInt(args[4]), args[5].split(","));
        } else if (args.length >= 3 && args[0].equals("describe")) {
            describe(args[1], Arrays.asList(args).subList(2, args.length));
        } else {
            System.err.println("usage: members BOOTSTRAP GROUP ASSIGNOR COUNT TOPICS | describe BOOTSTRAP GROUP...");
            System.exit(2);
        }
    }

    private static void members(String bootstrap, String group, String assignor, int count, String[] topics)
            throws InterruptedException, IOException {
        AtomicBoolean stop = new AtomicBoolean(false);
        CountDownLatch owning = new CountDownLatch(count);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Properties props = new Properties();
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("group.protocol", "classic");
            props.put("client.id", group + "-" + i);
            props.put("partition.assignment.strategy", assignor);
            props.put("session.timeout.ms", "10000");
            props.put("heartbeat.interval.ms", "1000");
            props.put("auto.offset.reset", "earliest");
            props.put("enable.auto.commit", "false");
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            Thread thread = new Thread(() -> {
                boolean counted = false;
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
                    consumer.subscribe(Arrays.asList(topics));
                    while (!stop.get()) {
                        consumer.poll(Duration.ofMillis(100));
                        if (!counted && !consumer.assignment().isEmpty()) {
                            counted = true;
                            owning.countDown();
                        }
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        owning.await();
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() != -1) {
            // The test closes our standard input when the members should leave.
        }
        stop.set(true);
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void describe(String bootstrap, List<String> groups) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        ObjectMapper json = new ObjectMapper();
        try (Admin admin = Admin.create(props)) {
            Map<String, GroupListing> listed = new LinkedHashMap<>();
            for (GroupListing listing : admin.listGroups().all().get()) {
                listed.put(listing.groupId(), listing);
            }
            for (String group : groups) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("group", group);
                GroupListing listing = listed.get(group);
                if (listing == null) {
                    out.put("type", null);
                    System.out.println(json.writeValueAsString(out));
                    continue;
                }
                GroupType type = listing.type().orElse(GroupType.UNKNOWN);
                out.put("type", type.toString());
                out.put("protocol", listing.protocol());
                out.put("state", listing.groupState().map(Object::toString).orElse(null));
                List<Map<String, Object>> members = new ArrayList<>();
                if (type == GroupType.SHARE) {
                    ShareGroupDescription share = admin.describeShareGroups(List.of(group)).all().get().get(group);
                    out.put("assignor", null);  // Admin's share-group description names none
                    for (ShareMemberDescription member : share.members()) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("member_id", member.consumerId());
                        m.put("client_id", member.clientId());
                        m.put("assignment", partitions(member.assignment().topicPartitions()));
                        members.add(m);
                    }
                } else if (type == GroupType.CLASSIC || type == GroupType.CONSUMER) {
                    ConsumerGroupDescription consumer =
                            admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                    out.put("assignor", consumer.partitionAssignor());
                    for (MemberDescription member : consumer.members()) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("member_id", member.consumerId());
                        m.put("client_id", member.clientId());
                        m.put("assignment", partitions(member.assignment().topicPartitions()));
                        m.put("target_assignment",
                                member.targetAssignment().map(t -> partitions(t.topicPartitions())).orElse(null));
                        members.add(m);
                    }
                }
                members.sort((a, b) -> ((String) a.get("member_id")).compareTo((String) b.get("member_id")));
                out.put("members", members);
                System.out.println(json.writeValueAsString(out));
            }
        }
    }

    private static List<String> partitions(Collection<TopicPartition> assigned) {
        TreeSet<String> sorted = new TreeSet<>();
        for (TopicPartition tp : assigned) {
            sorted.add(tp.topic() + ":" + tp.partition());
        }
        return new ArrayList<>(sorted);
    }
}
