/* Frame name → class path, on names taken from real async-profiler output
 * (fixtures v2.10 … v4.5, Zeebe) and on the other forms the profiler writes. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git/javaclass.h"

struct expect {
	const char *frame;
	const char *class_path; /* NULL: not a Java frame */
};

static const struct expect cases[] = {
	/* plain slashed frames */
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily.get",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily" },
	{ "java/lang/Thread.run", "java/lang/Thread" },
	{ "java/lang/Object.<init>", "java/lang/Object" },
	{ "io/camunda/zeebe/protocol/impl/record/RecordMetadata.<clinit>",
	  "io/camunda/zeebe/protocol/impl/record/RecordMetadata" },
	/* type suffixes (collapsed --annotate) */
	{ "io/camunda/zeebe/scheduler/ActorThread$ActorTask.execute_[i]", "io/camunda/zeebe/scheduler/ActorThread" },
	{ "io/camunda/zeebe/scheduler/ActorThread$ActorTask.execute_[j]", "io/camunda/zeebe/scheduler/ActorThread" },
	{ "io/camunda/zeebe/scheduler/ActorJob.invoke_[0]", "io/camunda/zeebe/scheduler/ActorJob" },
	{ "io/camunda/zeebe/scheduler/ActorJob.invoke_[1]", "io/camunda/zeebe/scheduler/ActorJob" },
	{ "java/nio/MappedByteBuffer.force_[k]", "java/nio/MappedByteBuffer" },
	/* lambdas, every JDK form */
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$21.0x00007faa4c012480.run", "io/atomix/raft/roles/LeaderRole" },
	{ "io/atomix/raft/roles/LeaderRole$$Lambda$21.0x00007faa4c012480.run_[j]", "io/atomix/raft/roles/LeaderRole" },
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda$12.0x00007faa4c0110f8.accept_[i]",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily" },
	{ "io/camunda/zeebe/stream/impl/ProcessingStateMachine$$Lambda$19/0x0000000801234560.run",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine" },
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily$$Lambda.0x00007f3b7b91000.run",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily" },
	{ "io/camunda/zeebe/stream/impl/ReplayStateMachine$$Lambda/0x00007f3b7b91000.run",
	  "io/camunda/zeebe/stream/impl/ReplayStateMachine" },
	{ "io.camunda.zeebe.stream.impl.ReplayStateMachine$$Lambda/0x00007f3b7b91000.run",
	  "io/camunda/zeebe/stream/impl/ReplayStateMachine" },
	{ "io.camunda.zeebe.stream.impl.ReplayStateMachine$$Lambda$22/0x0000000800c0c000.run",
	  "io/camunda/zeebe/stream/impl/ReplayStateMachine" },
	{ "io/camunda/zeebe/stream/impl/ReplayStateMachine.lambda$replayNextEvent$0",
	  "io/camunda/zeebe/stream/impl/ReplayStateMachine" },
	{ "io/camunda/zeebe/stream/impl/ProcessingStateMachine.lambda$executeSideEffects$2_[i]",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine" },
	{ "io.camunda.zeebe.stream.impl.ProcessingStateMachine.lambda$processCommand$0",
	  "io/camunda/zeebe/stream/impl/ProcessingStateMachine" },
	/* inner, anonymous, JDK hidden classes */
	{ "io/grpc/internal/ServerImpl$JumpToApplicationThreadServerStreamListener.messagesAvailable",
	  "io/grpc/internal/ServerImpl" },
	{ "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject.await",
	  "java/util/concurrent/locks/AbstractQueuedSynchronizer" },
	{ "io/camunda/zeebe/broker/Broker$1.run", "io/camunda/zeebe/broker/Broker" },
	{ "io/camunda/zeebe/Outer$Inner$Deeper.m", "io/camunda/zeebe/Outer" },
	{ "java/lang/invoke/LambdaForm$MH.0x00007faa4c00e000.invoke", "java/lang/invoke/LambdaForm" },
	{ "java/lang/invoke/LambdaForm$DMH/0x0000000800c0c000.invokeStatic", "java/lang/invoke/LambdaForm" },
	{ "java/lang/invoke/DirectMethodHandle$Holder.invokeStatic", "java/lang/invoke/DirectMethodHandle" },
	{ "jdk/proxy2/$Proxy45.invoke", "jdk/proxy2/$Proxy45" },
	{ "org/camunda/feel/impl/interpreter/EvalExpression$.apply", "org/camunda/feel/impl/interpreter/EvalExpression" },
	/* signatures and line numbers */
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/ZeebeTransaction.get(JJ[BI)[B",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/ZeebeTransaction" },
	{ "java/lang/String.indexOf(Ljava/lang/String;)I", "java/lang/String" },
	{ "io/camunda/zeebe/journal/file/SegmentedJournalWriter.append:123",
	  "io/camunda/zeebe/journal/file/SegmentedJournalWriter" },
	{ "io/camunda/zeebe/journal/file/SegmentedJournalWriter.append(J)V:123_[j]",
	  "io/camunda/zeebe/journal/file/SegmentedJournalWriter" },
	/* dotted form */
	{ "io.camunda.zeebe.db.impl.rocksdb.transaction.TransactionalColumnFamily.get",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily" },
	{ "io.camunda.zeebe.scheduler.ActorThread$ActorTask.execute_[j]", "io/camunda/zeebe/scheduler/ActorThread" },
	/* Kotlin mangled method */
	{ "io/example/ValueKt.getFoo-impl", "io/example/ValueKt" },
	/* class without method (slashed only) */
	{ "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily",
	  "io/camunda/zeebe/db/impl/rocksdb/transaction/TransactionalColumnFamily" },
	/* native, VM, kernel, libraries: not Java */
	{ "rocksdb::DBImpl::Get", NULL },
	{ "rocksdb::DBImpl::GetImpl(rocksdb::ReadOptions const&, rocksdb::Slice const&)", NULL },
	{ "[unknown]", NULL },
	{ "[unknown_Java]", NULL },
	{ "[break_not_walkable]", NULL },
	{ "/tmp/librocksdbjni1.so", NULL },
	{ "/tmp/librocksdbjni17782880952888685937.so", NULL },
	{ "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", NULL },
	{ "librocksdbjni17782880952888685937.so", NULL },
	{ "libc.so.6", NULL },
	{ "libjvm.so", NULL },
	{ "G1CMTask::do_marking_step", NULL },
	{ "AccessInternal::PostRuntimeDispatch<G1BarrierSet::AccessBarrier<544868ul,", NULL },
	{ "Thread::call_run", NULL },
	{ "thread_native_entry", NULL },
	{ "start_thread", NULL },
	{ "__syscall_cancel_arch_[k]", NULL },
	{ "do_syscall_64_[k]", NULL },
	{ "Interpreter", NULL },
	{ "vtable stub", NULL },
	{ "Java_org_rocksdb_RocksDB_get__J_3BII", NULL },
	{ "TransactionalColumnFamily", NULL },
	{ "TransactionalColumnFamily.get", NULL },
	{ "", NULL },
	{ "_[j]", NULL },
};

/* Names as people type them (fg_javaclass_from_name): NULL, no class. */
static const struct {
	const char *name;
	const char *class_path;
} typed[] = {
	{ "TransactionalColumnFamily", "TransactionalColumnFamily" },
	{ "TransactionalColumnFamily.ensureInOpenTransaction", "TransactionalColumnFamily" },
	{ "TransactionalColumnFamily$Inner.get", "TransactionalColumnFamily" },
	{ "TransactionalColumnFamily$$Lambda.accept", "TransactionalColumnFamily" },
	{ "io.camunda.zeebe.db.TransactionalColumnFamily", "io/camunda/zeebe/db/TransactionalColumnFamily" },
	{ "io.camunda.zeebe.db.TransactionalColumnFamily.get", "io/camunda/zeebe/db/TransactionalColumnFamily" },
	{ "io/camunda/zeebe/db/TransactionalColumnFamily", "io/camunda/zeebe/db/TransactionalColumnFamily" },
	{ "io/camunda/zeebe/db/TransactionalColumnFamily.get", "io/camunda/zeebe/db/TransactionalColumnFamily" },
	/* As frames: signatures, line numbers, type suffixes. */
	{ "io/camunda/zeebe/db/TransactionalColumnFamily.get(Ljava/lang/Object;)V", "io/camunda/zeebe/db/TransactionalColumnFamily" },
	{ "io/camunda/Foo.bar_[j]", "io/camunda/Foo" },
	{ "ensureInOpenTransaction", NULL },
	{ "io.camunda.zeebe", NULL },
	{ "rocksdb::DBImpl::Get", NULL },
	{ "do_syscall_64_[k]", NULL },
	{ "", NULL },
	{ "9Foo.bar", NULL },
};

int main(void)
{
	int failures = 0;
	char out[512];
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		fg_error err;
		fg_error_clear(&err);
		int rc = fg_javaclass_from_name(out, sizeof(out), typed[i].name, &err);
		if (typed[i].class_path ? rc != 1 || strcmp(out, typed[i].class_path) : rc != 0) {
			printf("FAIL: typed %s\n  want %s\n  got  rc=%d %s\n", typed[i].name,
			       typed[i].class_path ? typed[i].class_path : "no class", rc, rc == 1 ? out : "");
			failures++;
		}
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fg_error err;
		fg_error_clear(&err);
		int rc = fg_javaclass_from_frame(out, sizeof(out), cases[i].frame, &err);
		if (cases[i].class_path) {
			if (rc != 1 || strcmp(out, cases[i].class_path)) {
				printf("FAIL: %s\n  want %s\n  got  rc=%d %s\n", cases[i].frame, cases[i].class_path, rc,
				       rc == 1 ? out : "");
				failures++;
			}
		} else if (rc != 0) {
			printf("FAIL: %s\n  want not-Java\n  got  rc=%d %s\n", cases[i].frame, rc, rc == 1 ? out : "");
			failures++;
		}
	}

	/* Too small an output buffer is an error, never a truncated class. */
	fg_error err;
	fg_error_clear(&err);
	if (fg_javaclass_from_frame(out, 8, "io/camunda/zeebe/Foo.bar", &err) != FG_EUSAGE || err.code != FG_EUSAGE) {
		printf("FAIL: short buffer not refused\n");
		failures++;
	}
	/* NULL and oversize names are not Java frames. */
	if (fg_javaclass_from_frame(out, sizeof(out), NULL, &err) != 0) {
		printf("FAIL: NULL frame\n");
		failures++;
	}
	static char huge[FG_JAVACLASS_MAX_FRAME + 10];
	memset(huge, 'a', sizeof(huge) - 1);
	huge[3] = '/';
	huge[sizeof(huge) - 3] = '.';
	if (fg_javaclass_from_frame(out, sizeof(out), huge, &err) != 0) {
		printf("FAIL: oversize frame\n");
		failures++;
	}

	/* Every Java frame of a real profile parses; nothing native does. */
	const char *shared = getenv("FG_SHARED_FIXTURES");
	char path[1024];
	snprintf(path, sizeof(path), "%s/versions/v4.5-healthy.ann.collapsed", shared ? shared : "../shared/fixtures");
	FILE *f = fopen(path, "r");
	if (f) {
		static char line[1 << 16];
		size_t java = 0, checked = 0;
		while (fgets(line, sizeof(line), f)) {
			char *sp = strrchr(line, ' ');
			if (sp)
				*sp = '\0';
			for (char *tok = strtok(line, ";"); tok; tok = strtok(NULL, ";")) {
				int rc = fg_javaclass_from_frame(out, sizeof(out), tok, &err);
				checked++;
				bool slashed_java = strchr(tok, '/') && tok[0] != '/' && !strstr(tok, "::") && !strchr(tok, ' ');
				if (slashed_java && rc != 1) {
					printf("FAIL: real frame not parsed: %s\n", tok);
					failures++;
				}
				if (!slashed_java && rc == 1) {
					printf("FAIL: real native frame parsed as %s: %s\n", out, tok);
					failures++;
				}
				if (rc == 1) {
					java++;
					if (strchr(out, '$') && !strstr(out, "/$Proxy")) {
						printf("FAIL: '$' left in %s (from %s)\n", out, tok);
						failures++;
					}
				}
			}
			if (failures > 20)
				break;
		}
		fclose(f);
		printf("real frames: %zu checked, %zu Java\n", checked, java);
	} else {
		printf("note: %s not found, real-frame sweep skipped\n", path);
	}

	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
