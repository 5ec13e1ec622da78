import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../server/context';

/** Largest accepted file: the video limit of section 8 (images are checked at 20 MB when used). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/**
 * The pre-signed PUT target of GetPreUploadUrl. Registered in its own context: here bodies are raw
 * bytes of any content type, not JSON.
 */
export async function uploadRoutes(app: FastifyInstance, opts: { ctx: ServiceContext }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_req, body, done) =>
    done(null, body),
  );

  app.put<{ Params: { id: string }; Querystring: { token?: string } }>(
    '/upload/:id',
    {
      bodyLimit: MAX_UPLOAD_BYTES,
      // Before the body is read (up to 100 MiB): a PUT without a valid token is refused at once.
      onRequest: (req, reply, done) => {
        const id = /^\d+$/.test(req.params.id) ? Number(req.params.id) : NaN;
        const auth = opts.ctx.uploads.authorize(id, req.query.token ?? '');
        if (auth.ok) return done();
        void reply.header('connection', 'close').code(auth.status).send({ error: auth.message });
      },
    },
    (req, reply) => {
      const id = /^\d+$/.test(req.params.id) ? Number(req.params.id) : NaN;
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const r = opts.ctx.uploads.put(id, req.query.token ?? '', bytes);
      if (!r.ok) return reply.code(r.status).send({ error: r.message });
      return reply.code(200).send({ FileStoreId: String(r.record.id), size: r.record.size });
    },
  );
}
