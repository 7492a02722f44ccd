/** Every question in the browser's shape, for practice quizzes and review (precached offline). */
import type { APIRoute } from 'astro';
import { getBank } from '../data/deck.ts';

export const GET: APIRoute = async () => new Response(JSON.stringify(await getBank()), { headers: { 'Content-Type': 'application/json' } });
