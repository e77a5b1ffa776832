#!/usr/bin/env bash
# Writes Apache Kafka's command-line tools as small wrappers into <kafka home>/bin, for a
# Kafka installed from Maven Central as jars (scripts/setup.sh runs this on
# var/kafka/<version>): Maven has no bin/ scripts, and the commands the report and the
# docs print (`kafka-topics.sh --create ...`) should run as written. Put them on PATH with
#
#   export PATH="$PWD/var/kafka/4.4.0/bin:$PATH"
#
#   scripts/kafka-tools.sh HOME     HOME holds libs/ (Kafka's jars)
#
# Each wrapper runs `java -cp 'HOME/libs/*' <the tool's main class> "$@"`, the class Kafka
# 4.4.0's own bin/<tool>.sh hands to kafka-run-class.sh, and reads the variables those
# scripts read: KAFKA_HEAP_OPTS (default -Xmx256M, as for Kafka's tools), KAFKA_OPTS,
# KAFKA_LOG4J_OPTS and JAVA_HOME. Idempotent: a file is written only when its text changes.
set -euo pipefail

home=${1:?usage: scripts/kafka-tools.sh KAFKA_HOME}
[ -d "$home/libs" ] || { echo "kafka-tools.sh: no libs/ in $home" >&2; exit 1; }

# tool:main class, all in kafka-tools-<version>.jar (checked with `unzip -l` on 4.4.0).
TOOLS=(
  "kafka-topics.sh:org.apache.kafka.tools.TopicCommand"
  "kafka-consumer-groups.sh:org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
  "kafka-share-groups.sh:org.apache.kafka.tools.consumer.group.ShareGroupCommand"
  "kafka-streams-groups.sh:org.apache.kafka.tools.streams.StreamsGroupCommand"
  "kafka-configs.sh:org.apache.kafka.tools.ConfigCommand"
  "kafka-producer-perf-test.sh:org.apache.kafka.tools.ProducerPerformance"
  "kafka-consumer-perf-test.sh:org.apache.kafka.tools.ConsumerPerformance"
  "kafka-share-consumer-perf-test.sh:org.apache.kafka.tools.ShareConsumerPerformance"
  "kafka-console-producer.sh:org.apache.kafka.tools.ConsoleProducer"
  "kafka-console-consumer.sh:org.apache.kafka.tools.consumer.ConsoleConsumer"
  "kafka-get-offsets.sh:org.apache.kafka.tools.GetOffsetShell"
  "kafka-reassign-partitions.sh:org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
  "kafka-metadata-quorum.sh:org.apache.kafka.tools.MetadataQuorumCommand"
)

# Like Kafka's config/tools-log4j2.yaml: warnings and errors on stderr, so a tool's
# output on stdout stays parseable (Log4j's built-in default prints errors on stdout).
LOG_CONFIG='Configuration:
  Appenders:
    Console:
      name: stderr
      target: SYSTEM_ERR
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: stderr'

# write FILE TEXT [MODE]: only when the text differs, so a second run touches nothing.
write() {
  local file=$1 text=$2 mode=${3:-644}
  if [ "$(cat "$file" 2>/dev/null)" != "$text" ]; then
    printf '%s\n' "$text" >"$file.tmp"
    chmod "$mode" "$file.tmp"
    mv "$file.tmp" "$file"
  fi
}

mkdir -p "$home/bin" "$home/config"
write "$home/config/tools-log4j2.yaml" "$LOG_CONFIG"
for entry in "${TOOLS[@]}"; do
  tool=${entry%%:*} main=${entry##*:}
  # The home is found from the script's own place (through a symlink on PATH too), so
  # the folder can move with its bin/.
  write "$home/bin/$tool" "#!/bin/sh
# Apache Kafka's $tool: $main from the jars in ../libs.
# Written by scripts/kafka-tools.sh; Kafka's variables apply (KAFKA_HEAP_OPTS, KAFKA_OPTS,
# KAFKA_LOG4J_OPTS, JAVA_HOME).
home=\$(dirname \"\$(dirname \"\$(readlink -f \"\$0\")\")\")
log4j=\"-Dlog4j2.configurationFile=\$home/config/tools-log4j2.yaml\"
# shellcheck disable=SC2086 # the option variables hold several words, as in Kafka's scripts
exec \"\${JAVA_HOME:+\$JAVA_HOME/bin/}java\" \${KAFKA_HEAP_OPTS:--Xmx256M} \$KAFKA_OPTS \\
  \${KAFKA_LOG4J_OPTS:-\"\$log4j\"} -cp \"\$home/libs/*\" $main \"\$@\"" 755
done
