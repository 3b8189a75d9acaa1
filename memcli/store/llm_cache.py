"""The language-model answer cache (migration m002_llm_cache)."""

from __future__ import annotations

from memcli.store.connection import StoreBase, utcnow


class LLMCacheMixin(StoreBase):
    # --- language model: answer cache and pending extractions ---

    def llm_cache_get(self, content_hash: str, model: str, prompt_version: str) -> str | None:
        """A stored validated answer, counting the hit; None when there is none."""
        row = self.conn.execute(
            "SELECT response FROM llm_cache"
            " WHERE content_hash = ? AND model = ? AND prompt_version = ?",
            (content_hash, model, prompt_version),
        ).fetchone()
        if row is None:
            return None
        with self.transaction():
            self.conn.execute(
                "UPDATE llm_cache SET hits = hits + 1, last_hit_at = ?"
                " WHERE content_hash = ? AND model = ? AND prompt_version = ?",
                (utcnow(), content_hash, model, prompt_version),
            )
        return str(row[0])

    def llm_cache_put(
        self,
        content_hash: str,
        model: str,
        prompt_version: str,
        response: str,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        with self.transaction():
            self.conn.execute(
                """
                INSERT INTO llm_cache (content_hash, model, prompt_version, response,
                  prompt_tokens, completion_tokens, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (content_hash, model, prompt_version) DO UPDATE SET
                  response = excluded.response, created_at = excluded.created_at
                """,
                (
                    content_hash,
                    model,
                    prompt_version,
                    response,
                    prompt_tokens,
                    completion_tokens,
                    utcnow(),
                ),
            )
