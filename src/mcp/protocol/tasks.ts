/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for modern (2026-07-28) requests: a
 * `tools/call` the server chooses to run as a task is answered at once with a `CreateTaskResult`
 * (`resultType: "task"`), and the client polls `tasks/get` for its status and, once terminal, its result.
 * `tasks/update` is acknowledged (this server never asks a task for input) and `tasks/cancel` stops the
 * work. Knows nothing of what the tools do; which tool may run as a task is the application's choice
 * (`ToolDefinition.taskSupport`).
 *
 * A task id is 128 crypto-random bits (base64url) and a bearer of the task's result, looked up only in the
 * store of the server that minted it (one per client connection, or per HTTP client): SEP-2663 asks for
 * unguessable ids bound to their caller. There is no `tasks/list` (removed by the extension).
 *
 * @module
 */

/** The extension's identifier, in client and server capabilities' `extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How long a task (and its result) is kept after its creation. */
export const TASK_TTL_MS = 30 * 60 * 1000;

/** The polling interval suggested to clients. */
export const TASK_POLL_INTERVAL_MS = 1000;

/** Tasks one store holds at once (running or finished); beyond, a call is answered directly instead. */
export const MAX_TASKS = 64;

/** A task's status, as the extension names them. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** One task held by a {@link TaskStore}. */
export interface TaskRecord {
  readonly taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAt: number;
  lastUpdatedAt: number;
  /** The work's controller: `tasks/cancel` aborts it. */
  readonly controller: AbortController;
  /** The final result (`completed`), as the original request would have returned it. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error (`failed`). */
  error?: TaskError;
}

/** Whether `capabilities` (a request's client capabilities) declare the tasks extension. */
export function declaresTasks(capabilities: Record<string, unknown> | null | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/**
 * The tasks of one server. Finished tasks are kept until {@link TASK_TTL_MS} after their creation; a
 * running task is never dropped by the bound (a call is answered directly while the store is full of
 * running ones).
 */
export class TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  #closed = false;

  /** A store whose tasks live `ttlMs` after creation; `now` is the clock. */
  constructor(ttlMs: number = TASK_TTL_MS, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** Whether a new task may be created now. */
  hasRoom(): boolean {
    if (this.#closed) return false;
    this.#sweep();
    if (this.#tasks.size < MAX_TASKS) return true;
    for (const task of this.#tasks.values()) if (task.status !== "working") return true;
    return false;
  }

  /** A new working task around `controller` (the oldest finished task makes room when the store is full). */
  create(controller: AbortController, statusMessage?: string): TaskRecord {
    this.#sweep();
    if (this.#tasks.size >= MAX_TASKS) {
      for (const [id, task] of this.#tasks) {
        if (task.status !== "working") {
          this.#tasks.delete(id);
          break;
        }
      }
    }
    const now = this.#now();
    const task: TaskRecord = {
      taskId: newTaskId(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      controller,
      ...(statusMessage === undefined ? {} : { statusMessage }),
    };
    this.#tasks.set(task.taskId, task);
    return task;
  }

  /** The task `taskId`, or null when unknown here, malformed or expired. */
  get(taskId: unknown): TaskRecord | null {
    if (typeof taskId !== "string" || taskId.length > 64) return null;
    this.#sweep();
    return this.#tasks.get(taskId) ?? null;
  }

  /** Set a working task's status message (its progress). */
  note(task: TaskRecord, message: string): void {
    if (task.status !== "working" || task.statusMessage === message) return;
    task.statusMessage = message;
    task.lastUpdatedAt = this.#now();
  }

  /** End a working task; a terminal one stays as it is (terminal states never change). */
  finish(
    task: TaskRecord,
    outcome:
      | { status: "completed"; result: Record<string, unknown> }
      | { status: "failed"; error: TaskError }
      | { status: "cancelled"; message: string },
  ): void {
    if (task.status !== "working") return;
    task.status = outcome.status;
    task.lastUpdatedAt = this.#now();
    if (outcome.status === "completed") {
      task.result = outcome.result;
      delete task.statusMessage;
    } else if (outcome.status === "failed") {
      task.error = outcome.error;
      task.statusMessage = outcome.error.message;
    } else {
      task.statusMessage = outcome.message;
    }
  }

  /** Stop every running task (the server is closing); later creations are refused. */
  close(reason: string): void {
    this.#closed = true;
    for (const task of this.#tasks.values()) {
      if (task.status === "working") {
        task.controller.abort(new DOMException(reason, "AbortError"));
        this.finish(task, { status: "cancelled", message: reason });
      }
    }
  }

  /**
   * The `Task` members of `task` (what `CreateTaskResult`, and with the status payload `tasks/get`,
   * carry): timestamps as ISO 8601, `ttlMs` from creation and the suggested poll interval.
   */
  wire(task: TaskRecord, detailed: boolean): Record<string, unknown> {
    const shaped: Record<string, unknown> = {
      taskId: task.taskId,
      status: task.status,
      ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
      createdAt: new Date(task.createdAt).toISOString(),
      lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
      ttlMs: this.#ttlMs,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
    };
    if (detailed && task.status === "completed") shaped.result = task.result;
    if (detailed && task.status === "failed") shaped.error = task.error;
    return shaped;
  }

  #sweep(): void {
    const limit = this.#now() - this.#ttlMs;
    for (const [id, task] of this.#tasks) {
      if (task.createdAt < limit && task.status !== "working") this.#tasks.delete(id);
    }
  }
}

/** A fresh task id: 16 crypto-random bytes in base64url. */
function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
