/*
 * delayline: the propagation delay of JetStream's emulated WAN (io.jetstream.kafka.testkit.wan).
 *
 * The kernel on the test machines has no netem, so the delay is added in user space: policy
 * routing in the WAN "core" namespace sends every packet a host puts on its WAN link into a TUN
 * device; this program reads each packet, keeps it in a FIFO for the one-way delay, and writes
 * it back into the TUN at its due time; the kernel then routes it to the destination host.
 *
 *   host a1 --veth--> core ns --(ip rule iif wan-a1)--> tun --read--> FIFO ring
 *                                                                       | held for the delay
 *   host b1 <--veth-- core ns <--(main table)---------- tun <--write----+
 *
 * Invariants:
 *  - every packet gets the same delay, so arrival order is due order and one FIFO suffices;
 *    packets are never reordered, and never duplicated;
 *  - the ring is allocated once, pre-faulted and locked (mlockall), so the hot path never takes
 *    a page fault or calls malloc; when it is full, packets are dropped and counted (a tail drop,
 *    like a router queue), never blocked on;
 *  - reads and writes alternate in bounded bursts so that neither starves the other;
 *  - the thread runs SCHED_FIFO with zero timer slack, sleeping in ppoll() until the head packet
 *    is due or the TUN is readable; signals are only unblocked inside ppoll() (no races);
 *  - with --cpu, it stays on that CPU, and the caller steers the TUN's received packets to the other
 *    CPUs with RPS: a write() then only queues the packet, instead of forwarding it and running the
 *    receiving host's TCP stack inside the call (~30 us a packet, which made the delay line fall
 *    behind at ~15k packets/s on a 2-core machine; with the split, 99.9% are within 0.75 ms);
 *  - SIGTERM/SIGINT stop it cleanly; it prints its counters on exit and rewrites them in the
 *    stats file (one fixed-width line at offset 0) every second.
 *
 * Lateness = (time the packet is written) - (time it was read + delay): the jitter this program
 * adds on top of the queueing in the kernel. It is kept as a 1 us histogram up to 20 ms.
 *
 * Usage: delayline --tun NAME --delay-us N [--slots N] [--priority P] [--cpu N] [--stats-file PATH]
 * Exit codes: 0 stopped by a signal, 1 runtime error, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

struct slot {
    uint64_t due_ns;
    uint32_t len;
    uint32_t reserved;
    unsigned char data[PAYLOAD_MAX];
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
static struct counters stats;
static unsigned char scratch[SLOT_BYTES];

static void on_stop(int sig) {
    (void) sig;
    stop_requested = 1;
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

static void usage(void) {
    fprintf(stderr, "usage: delayline --tun NAME --delay-us N [--slots N] [--priority P] [--cpu N]"
            " [--stats-file PATH]\n");
}

int main(int argc, char **argv) {
    const char *tun = NULL;
    const char *stats_path = NULL;
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
            default: usage(); return 2;
        }
    }
    /* a power of two, so that ring positions wrap with a mask */
    if (tun == NULL || delay_us < 0 || delay_us > 10000000 || slots < 64 || slots > (1 << 20)
            || (slots & (slots - 1)) != 0 || priority < 0 || priority > 99 || cpu < -1 || cpu >= CPU_SETSIZE) {
        usage();
        return 2;
    }
    const uint64_t delay_ns = (uint64_t) delay_us * 1000ull;
    const uint64_t mask = (uint64_t) slots - 1;

    /* Signals are blocked except while sleeping in ppoll(), which then returns EINTR. */
    sigset_t blocked, sleeping;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGHUP);
    sigprocmask(SIG_BLOCK, &blocked, &sleeping);
    sigdelset(&sleeping, SIGTERM);
    sigdelset(&sleeping, SIGINT);
    sigdelset(&sleeping, SIGHUP);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGHUP, &action, NULL);

    size_t ring_bytes = (size_t) slots * sizeof(struct slot);
    struct slot *ring = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (ring == MAP_FAILED) {
        fprintf(stderr, "delayline: mmap %zu bytes: %s\n", ring_bytes, strerror(errno));
        return 1;
    }
    memset(ring, 0, ring_bytes); /* pre-fault every page, whether or not MAP_POPULATE did */
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
    fflush(stdout);

    uint64_t head = 0;    /* next packet to write */
    uint64_t count = 0;   /* packets held */
    uint64_t next_stats_ns = now_ns() + 1000000000ull;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int status = 0;

    while (!stop_requested) {
        uint64_t now = now_ns();

        /* 1. Write back what is due (at most BURST, then look at the TUN again). */
        for (int i = 0; i < BURST && count > 0; i++) {
            struct slot *s = &ring[head & mask];
            if (s->due_ns > now) {
                break;
            }
            record_lateness(now - s->due_ns);
            if (write(fd, s->data, s->len) == (ssize_t) s->len) {
                stats.packets++;
                stats.bytes += s->len;
            } else {
                stats.write_errors++;
            }
            head++;
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
            if (count == (uint64_t) slots) {
                n = read(fd, scratch, sizeof scratch);
                if (n > 0) {
                    stats.dropped++;
                }
            } else {
                struct slot *s = &ring[(head + count) & mask];
                n = read(fd, s->data, PAYLOAD_MAX);
                if (n > 0) {
                    s->len = (uint32_t) n;
                    s->due_ns = now_ns() + delay_ns;
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
        int due_now = count > 0 && ring[head & mask].due_ns <= now;
        if (drained && !due_now) {
            uint64_t wake = next_stats_ns;
            if (count > 0 && ring[head & mask].due_ns < wake) {
                wake = ring[head & mask].due_ns;
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
    printf("delayline exit %s held=%llu\n", line, (unsigned long long) count);
    fflush(stdout);
    if (stats_fd >= 0) {
        close(stats_fd);
    }
    close(fd);
    return status;
}
