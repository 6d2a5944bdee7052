package io.jetstream.kafka.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The machine and the code a run measured: for the result's {@code machine} and {@code git_commit}. */
final class MachineInfo {

    private MachineInfo() {
    }

    static Map<String, Object> describe() {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("nproc", Runtime.getRuntime().availableProcessors());
        machine.put("cpu_model", cpuModel(read("/proc/cpuinfo")));
        machine.put("kernel", read("/proc/sys/kernel/osrelease").trim());
        machine.put("memory_total_kb", memTotalKb(read("/proc/meminfo")));
        machine.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        machine.put("load_average_at_start", read("/proc/loadavg").trim());
        return machine;
    }

    /** The first "model name" of /proc/cpuinfo text, or "unknown". */
    static String cpuModel(String cpuinfo) {
        for (String line : cpuinfo.split("\n")) {
            if (line.startsWith("model name")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        return "unknown";
    }

    static long memTotalKb(String meminfo) {
        for (String line : meminfo.split("\n")) {
            if (line.startsWith("MemTotal:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    /** {@code git rev-parse HEAD} of the checkout, with {@code +dirty} when files are modified. */
    static String gitCommit(Path projectRoot) {
        String head = git(projectRoot, "rev-parse", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        String status = git(projectRoot, "status", "--porcelain", "--untracked-files=no");
        return status.isEmpty() ? head : head + "+dirty";
    }

    private static String git(Path dir, String... args) {
        try {
            String[] command = new String[args.length + 1];
            command[0] = "git";
            System.arraycopy(args, 0, command, 1, args.length);
            Process git = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
