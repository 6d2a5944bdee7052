/*
 * delayline: the propagation delay of JetStream's emulated WAN (io.jetstream.kafka.bench.wan).
 *
 * The kernel on the test machines has no netem, so the delay is added in user space: policy
 * routing in the WAN "core" namespace sends every packet a host puts on its WAN link into a TUN
 * device; this program reads each packet, keeps it in a FIFO for the one-way delay, and writes
 * it back into the TUN at its due time; the kernel then routes it to the destination host.
 *
 *   host a1 --veth--> core ns --(ip rule iif wan-a1)--> tun --read--> FIFO of a1's class
 *                                                                       | held for its delay
 *   host b1 <--veth-- core ns <--(main table)---------- tun <--write----+
 *
 * Delay classes: every packet gets --delay-us, except packets whose IPv4 source address has a
 * line "A.B.C.D DELAY_US" in the --control-file, which get that delay (the Java side lists every
 * host, so each host has a class, a FIFO, of its own). The file is read at start and again on
 * SIGUSR1; a line "generation N" in it is echoed in the "delayline delays generation=N ..." line
 * printed once the new delays apply, so the caller knows when they do. A source keeps its class
 * once it has one (a source left out of a later file goes back to --delay-us in its own class).
 *
 * Invariants:
 *  - within a class, due times never decrease (due = max(arrival + delay, previous due)), so one
 *    FIFO per class suffices and a class's packets are never reordered, even when its delay is
 *    lowered at run time; packets are never duplicated; the next packet written is the earliest
 *    due head of all classes;
 *  - the slots are one pool, allocated once, pre-faulted and locked (mlockall), shared by the
 *    classes through a free list, so the hot path never takes a page fault or calls malloc; when
 *    the pool is empty, packets are dropped and counted (a tail drop, like a router queue), never
 *    blocked on;
 *  - reads and writes alternate in bounded bursts so that neither starves the other;
 *  - the thread runs SCHED_FIFO with zero timer slack, sleeping in ppoll() until the head packet
 *    is due or the TUN is readable; signals are only unblocked inside ppoll() (no races);
 *  - with --cpu, it stays on that CPU, and the caller steers the TUN's received packets to the other
 *    CPUs with RPS: a write() then only queues the packet, instead of forwarding it and running the
 *    receiving host's TCP stack inside the call (~30 us a packet, which made the delay line fall
 *    behind at ~15k packets/s on a 2-core machine; with the split, 99.9% are within 0.75 ms);
 *  - SIGTERM/SIGINT stop it cleanly; it prints its counters (and each class's) on exit and rewrites
 *    them in the stats file (one fixed-width line at offset 0) every second.
 *
 * Lateness = (time the packet is written) - (its due time): the jitter this program adds on top of
 * the queueing in the kernel. It is kept as a 1 us histogram up to 20 ms.
 *
 * Usage: delayline --tun NAME --delay-us N [--slots N] [--priority P] [--cpu N] [--stats-file PATH]
 *                  [--control-file PATH]
 * Exit codes: 0 stopped by a signal, 1 runtime error, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <getopt.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SLOT_BYTES 2048u                 /* one packet per slot; the TUN's MTU is 1500 */
#define SLOT_HEADER 16u
#define PAYLOAD_MAX (SLOT_BYTES - SLOT_HEADER)
#define BURST 16                         /* packets moved per side before looking at the other */
#define HIST_BUCKETS 20000               /* 1 us buckets: 0 .. 20 ms of lateness */
#define STATS_LINE 256                   /* fixed width of the stats file's line */
#define MAX_CLASSES 65                   /* class 0: every source without a class of its own */
#define MAX_DELAY_US 10000000ll
#define NO_SLOT UINT32_MAX

struct slot {
    uint64_t due_ns;
    uint32_t len;
    uint32_t next;                       /* next slot of the same class, or NO_SLOT */
    unsigned char data[PAYLOAD_MAX];
};

struct delay_class {
    uint32_t addr;                       /* IPv4 source, network order; unused for class 0 */
    uint64_t delay_ns;
    uint64_t last_due_ns;                /* due times of a class never decrease */
    uint32_t head;                       /* oldest held slot, or NO_SLOT */
    uint32_t tail;
    uint64_t held;
    uint64_t packets;                    /* written back */
};

struct counters {
    uint64_t packets;        /* written back, i.e. delivered to the kernel after the delay */
    uint64_t bytes;
    uint64_t dropped;        /* ring full */
    uint64_t write_errors;
    uint64_t late_max_ns;
    uint64_t late_over_1ms;
    uint64_t in_flight_max;
    uint64_t write_max_ns;   /* longest single write(): the kernel forwards the packet inside it */
    uint64_t samples;        /* packets in the histogram */
    uint64_t hist[HIST_BUCKETS + 1]; /* last bucket: 20 ms or more */
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;
static struct delay_class classes[MAX_CLASSES];
static int class_count = 1;
static struct counters stats;
static unsigned char scratch[SLOT_BYTES];

static void on_stop(int sig) {
    (void) sig;
    stop_requested = 1;
}

static void on_reload(int sig) {
    (void) sig;
    reload_requested = 1;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* p50, p99 and p99.9 of lateness in one pass over the histogram: upper bucket edges, capped at the maximum seen. */
static void late_percentiles_us(uint64_t out[3]) {
    static const double fractions[3] = {0.50, 0.99, 0.999};
    uint64_t max_us = (stats.late_max_ns + 999) / 1000;
    uint64_t seen = 0;
    int next = 0;
    for (int i = 0; i <= HIST_BUCKETS && next < 3; i++) {
        seen += stats.hist[i];
        while (next < 3 && stats.samples > 0 && seen > (uint64_t) (fractions[next] * (double) (stats.samples - 1))) {
            uint64_t edge = (uint64_t) i + 1;
            out[next++] = edge < max_us ? edge : max_us;
        }
    }
    while (next < 3) {
        out[next++] = stats.samples > 0 ? max_us : 0;
    }
}

static int format_stats(char *line, size_t size) {
    uint64_t late[3];
    late_percentiles_us(late);
    return snprintf(line, size,
            "packets=%llu bytes=%llu dropped=%llu write_errors=%llu late_max_us=%llu"
            " late_p50_us=%llu late_p99_us=%llu late_p999_us=%llu late_over_1ms=%llu in_flight_max=%llu write_max_us=%llu",
            (unsigned long long) stats.packets, (unsigned long long) stats.bytes,
            (unsigned long long) stats.dropped, (unsigned long long) stats.write_errors,
            (unsigned long long) ((stats.late_max_ns + 999) / 1000), (unsigned long long) late[0],
            (unsigned long long) late[1], (unsigned long long) late[2],
            (unsigned long long) stats.late_over_1ms, (unsigned long long) stats.in_flight_max,
            (unsigned long long) (stats.write_max_ns / 1000));
}

static void write_stats_file(int fd) {
    if (fd < 0) {
        return;
    }
    char line[STATS_LINE];
    int n = format_stats(line, sizeof line);
    if (n < 0 || n >= STATS_LINE - 1) {
        n = STATS_LINE - 2;
    }
    memset(line + n, ' ', STATS_LINE - 1 - (size_t) n); /* pad: one pwrite replaces the whole line */
    line[STATS_LINE - 1] = '\n';
    if (pwrite(fd, line, STATS_LINE, 0) != STATS_LINE) {
        /* the stats file is informative only; the counters are printed again on exit */
    }
}

static void record_lateness(uint64_t late_ns) {
    if (late_ns > stats.late_max_ns) {
        stats.late_max_ns = late_ns;
    }
    if (late_ns > 1000000ull) {
        stats.late_over_1ms++;
    }
    stats.samples++;
    uint64_t bucket = late_ns / 1000;
    stats.hist[bucket < HIST_BUCKETS ? bucket : HIST_BUCKETS]++;
}

static int open_tun(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "delayline: open /dev/net/tun: %s\n", strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "delayline: TUNSETIFF %s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static int class_of(uint32_t addr) {
    for (int c = 1; c < class_count; c++) {
        if (classes[c].addr == addr) {
            return c;
        }
    }
    return 0;
}

/* The class of a packet: its IPv4 source's, or 0. */
static int classify(const unsigned char *packet, ssize_t len) {
    if (class_count == 1 || len < 20 || (packet[0] >> 4) != 4) {
        return 0;
    }
    uint32_t addr;
    memcpy(&addr, packet + 12, sizeof addr);
    return class_of(addr);
}

/* The non-empty class whose head is due first, or -1. */
static int earliest_class(const struct slot *ring) {
    int best = -1;
    for (int c = 0; c < class_count; c++) {
        if (classes[c].head != NO_SLOT
                && (best < 0 || ring[classes[c].head].due_ns < ring[classes[best].head].due_ns)) {
            best = c;
        }
    }
    return best;
}

/*
 * Reads "A.B.C.D DELAY_US" and "generation N" lines (outside the hot path: stdio may allocate). A missing file
 * means no classes. Returns the number of lines rejected, or -1 if the file cannot be read.
 */
static int load_control(const char *path, uint64_t base_ns, long long *generation) {
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        if (errno == ENOENT) {
            return 0;
        }
        fprintf(stderr, "delayline: control file %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int c = 1; c < class_count; c++) {
        classes[c].delay_ns = base_ns;
    }
    int rejected = 0;
    char line[128];
    while (fgets(line, sizeof line, file) != NULL) {
        char word[64];
        long long value;
        if (sscanf(line, "%63s %lld", word, &value) != 2) {
            continue;
        }
        if (strcmp(word, "generation") == 0) {
            *generation = value;
            continue;
        }
        struct in_addr addr;
        if (inet_pton(AF_INET, word, &addr) != 1 || value < 0 || value > MAX_DELAY_US) {
            fprintf(stderr, "delayline: control file %s: rejected line: %s", path, line);
            rejected++;
            continue;
        }
        int c = class_of(addr.s_addr);
        if (c == 0) {
            if (class_count == MAX_CLASSES) {
                fprintf(stderr, "delayline: control file %s: more than %d sources, ignored: %s", path,
                        MAX_CLASSES - 1, line);
                rejected++;
                continue;
            }
            c = class_count++;
            memset(&classes[c], 0, sizeof classes[c]);
            classes[c].addr = addr.s_addr;
            classes[c].head = NO_SLOT;
            classes[c].tail = NO_SLOT;
        }
        classes[c].delay_ns = (uint64_t) value * 1000ull;
    }
    fclose(file);
    return rejected;
}

static void print_classes(const char *what, long long generation) {
    printf("delayline %s generation=%lld classes=%d", what, generation, class_count - 1);
    for (int c = 1; c < class_count; c++) {
        char text[INET_ADDRSTRLEN];
        struct in_addr addr = {.s_addr = classes[c].addr};
        inet_ntop(AF_INET, &addr, text, sizeof text);
        printf(" %s=%lluus/%llupackets", text, (unsigned long long) (classes[c].delay_ns / 1000),
                (unsigned long long) classes[c].packets);
    }
    printf(" other=%lluus/%llupackets\n", (unsigned long long) (classes[0].delay_ns / 1000),
            (unsigned long long) classes[0].packets);
    fflush(stdout);
}

static void usage(void) {
    fprintf(stderr, "usage: delayline --tun NAME --delay-us N [--slots N] [--priority P] [--cpu N]"
            " [--stats-file PATH] [--control-file PATH]\n");
}

int main(int argc, char **argv) {
    const char *tun = NULL;
    const char *stats_path = NULL;
    const char *control_path = NULL;
    long long delay_us = -1;
    long long slots = 8192;
    int priority = 50;
    int cpu = -1;
    static const struct option options[] = {
        {"tun", required_argument, NULL, 't'},
        {"delay-us", required_argument, NULL, 'd'},
        {"slots", required_argument, NULL, 's'},
        {"priority", required_argument, NULL, 'p'},
        {"cpu", required_argument, NULL, 'c'},
        {"stats-file", required_argument, NULL, 'f'},
        {"control-file", required_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
            case 't': tun = optarg; break;
            case 'd': delay_us = atoll(optarg); break;
            case 's': slots = atoll(optarg); break;
            case 'p': priority = atoi(optarg); break;
            case 'c': cpu = atoi(optarg); break;
            case 'f': stats_path = optarg; break;
            case 'k': control_path = optarg; break;
            default: usage(); return 2;
        }
    }
    /* a power of two, as the ring always had: sizes stay the ones the Java side computes */
    if (tun == NULL || delay_us < 0 || delay_us > MAX_DELAY_US || slots < 64 || slots > (1 << 20)
            || (slots & (slots - 1)) != 0 || priority < 0 || priority > 99 || cpu < -1 || cpu >= CPU_SETSIZE) {
        usage();
        return 2;
    }
    const uint64_t delay_ns = (uint64_t) delay_us * 1000ull;
    classes[0].delay_ns = delay_ns;
    classes[0].head = NO_SLOT;
    classes[0].tail = NO_SLOT;
    long long generation = 0;
    if (control_path != NULL && load_control(control_path, delay_ns, &generation) != 0) {
        return 2;
    }

    /* Signals are blocked except while sleeping in ppoll(), which then returns EINTR. */
    sigset_t blocked, sleeping;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGHUP);
    sigaddset(&blocked, SIGUSR1);
    sigprocmask(SIG_BLOCK, &blocked, &sleeping);
    sigdelset(&sleeping, SIGTERM);
    sigdelset(&sleeping, SIGINT);
    sigdelset(&sleeping, SIGHUP);
    sigdelset(&sleeping, SIGUSR1);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
    action.sa_handler = on_reload;
    sigaction(SIGUSR1, &action, NULL);

    size_t ring_bytes = (size_t) slots * sizeof(struct slot);
    struct slot *ring = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (ring == MAP_FAILED) {
        fprintf(stderr, "delayline: mmap %zu bytes: %s\n", ring_bytes, strerror(errno));
        return 1;
    }
    memset(ring, 0, ring_bytes); /* pre-fault every page, whether or not MAP_POPULATE did */
    size_t free_bytes = (size_t) slots * sizeof(uint32_t);
    uint32_t *free_slots = mmap(NULL, free_bytes, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (free_slots == MAP_FAILED) {
        fprintf(stderr, "delayline: mmap %zu bytes: %s\n", free_bytes, strerror(errno));
        return 1;
    }
    uint64_t free_count = 0;
    for (long long i = slots - 1; i >= 0; i--) {
        free_slots[free_count++] = (uint32_t) i;
    }
    memset(&stats, 0, sizeof stats);
    const char *mlock_state = "ok";
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
        mlock_state = strerror(errno);
        fprintf(stderr, "delayline: warning: mlockall: %s (page faults may add jitter)\n", mlock_state);
    }
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    struct sched_param param;
    memset(&param, 0, sizeof param);
    param.sched_priority = priority;
    const char *sched_state = "fifo";
    if (priority > 0 && sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
        sched_state = "other";
        fprintf(stderr, "delayline: warning: SCHED_FIFO %d: %s (running SCHED_OTHER)\n", priority, strerror(errno));
    } else if (priority == 0) {
        sched_state = "other";
    }

    char cpu_state[32] = "any";
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) == 0) {
            snprintf(cpu_state, sizeof cpu_state, "%d", cpu);
        } else {
            fprintf(stderr, "delayline: warning: cannot stay on CPU %d: %s\n", cpu, strerror(errno));
        }
    }

    int fd = open_tun(tun);
    if (fd < 0) {
        return 1;
    }
    int stats_fd = -1;
    if (stats_path != NULL) {
        stats_fd = open(stats_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (stats_fd < 0) {
            fprintf(stderr, "delayline: warning: stats file %s: %s\n", stats_path, strerror(errno));
        }
    }
    write_stats_file(stats_fd);
    printf("delayline ready tun=%s delay_us=%lld slots=%lld sched=%s:%d cpu=%s mlock=%s pid=%ld\n",
            tun, delay_us, slots, sched_state, priority, cpu_state, mlock_state, (long) getpid());
    print_classes("delays", generation);

    uint64_t count = 0;   /* packets held, all classes */
    uint64_t next_stats_ns = now_ns() + 1000000000ull;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int status = 0;

    while (!stop_requested) {
        uint64_t now = now_ns();

        if (reload_requested) {
            reload_requested = 0;
            if (control_path != NULL && load_control(control_path, delay_ns, &generation) >= 0) {
                print_classes("delays", generation);
            }
        }

        /* 1. Write back what is due, earliest first across the classes (at most BURST, then look at the TUN). */
        for (int i = 0; i < BURST && count > 0; i++) {
            int c = earliest_class(ring);
            uint32_t index = classes[c].head;
            struct slot *s = &ring[index];
            if (s->due_ns > now) {
                break;
            }
            record_lateness(now - s->due_ns);
            if (write(fd, s->data, s->len) == (ssize_t) s->len) {
                stats.packets++;
                stats.bytes += s->len;
                classes[c].packets++;
            } else {
                stats.write_errors++;
            }
            classes[c].head = s->next;
            if (s->next == NO_SLOT) {
                classes[c].tail = NO_SLOT;
            }
            classes[c].held--;
            free_slots[free_count++] = index;
            count--;
            uint64_t written = now_ns();
            if (written - now > stats.write_max_ns) {
                stats.write_max_ns = written - now;
            }
            now = written;
        }

        /* 2. Read what has arrived (at most BURST), stamping each packet's due time. */
        int drained = 0;
        for (int i = 0; i < BURST; i++) {
            ssize_t n;
            if (free_count == 0) {
                n = read(fd, scratch, sizeof scratch);
                if (n > 0) {
                    stats.dropped++;
                }
            } else {
                uint32_t index = free_slots[free_count - 1];
                struct slot *s = &ring[index];
                n = read(fd, s->data, PAYLOAD_MAX);
                if (n > 0) {
                    free_count--;
                    int c = classify(s->data, n);
                    uint64_t due = now_ns() + classes[c].delay_ns;
                    if (due < classes[c].last_due_ns) {
                        due = classes[c].last_due_ns; /* a lowered delay: wait behind the class's earlier packets */
                    }
                    classes[c].last_due_ns = due;
                    s->len = (uint32_t) n;
                    s->due_ns = due;
                    s->next = NO_SLOT;
                    if (classes[c].tail == NO_SLOT) {
                        classes[c].head = index;
                    } else {
                        ring[classes[c].tail].next = index;
                    }
                    classes[c].tail = index;
                    classes[c].held++;
                    count++;
                    if (count > stats.in_flight_max) {
                        stats.in_flight_max = count;
                    }
                }
            }
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    drained = 1;
                    break;
                }
                fprintf(stderr, "delayline: read %s: %s\n", tun, strerror(errno));
                status = 1;
                stop_requested = 1;
                break;
            }
        }

        now = now_ns();
        if (now >= next_stats_ns) {
            write_stats_file(stats_fd);
            next_stats_ns = now + 1000000000ull;
        }

        /* 3. Sleep until the head packet is due, a packet arrives, the stats are due, or a signal comes. When
         * packets are still waiting in the TUN or are due already, poll without sleeping: ppoll() is also where
         * the stop signals get through, so it is never skipped. */
        struct timespec timeout = {0, 0};
        int first = count > 0 ? earliest_class(ring) : -1;
        uint64_t first_due = first >= 0 ? ring[classes[first].head].due_ns : UINT64_MAX;
        int due_now = first_due <= now;
        if (drained && !due_now && !reload_requested) {
            uint64_t wake = next_stats_ns;
            if (first_due < wake) {
                wake = first_due;
            }
            uint64_t wait = wake - now;
            timeout.tv_sec = (time_t) (wait / 1000000000ull);
            timeout.tv_nsec = (long) (wait % 1000000000ull);
        }
        if (ppoll(&pfd, 1, &timeout, &sleeping) < 0 && errno != EINTR) {
            fprintf(stderr, "delayline: ppoll: %s\n", strerror(errno));
            status = 1;
            break;
        }
    }

    write_stats_file(stats_fd);
    char line[STATS_LINE];
    format_stats(line, sizeof line);
    print_classes("classes", generation);
    printf("delayline exit %s held=%llu\n", line, (unsigned long long) count);
    fflush(stdout);
    if (stats_fd >= 0) {
        close(stats_fd);
    }
    close(fd);
    return status;
}
